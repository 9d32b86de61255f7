import { TopBar } from '../components/TopBar';
import { WhisperModels } from '../components/WhisperModels';

/** Studio settings: today the speech recognition models. */
export function SettingsView() {
  return (
    <>
      <TopBar crumbs={[{ label: 'Projects', href: '#/' }, { label: 'Settings' }]} />
      <main className="page">
        <h1>Settings</h1>
        <WhisperModels />
      </main>
    </>
  );
}
