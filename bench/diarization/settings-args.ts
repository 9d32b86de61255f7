import {
  DEFAULT_DIARIZER_SETTINGS,
  type SpectralDiarizerSettings,
} from '../../src/service/speech/diarization/spectralDiarizer';

/**
 * Diarizer settings from every `--set name=value` in `argv`. An unknown name is an error, so a mistyped
 * setting cannot silently measure the defaults.
 */
export function diarizerSettingsFromArgs(argv: readonly string[]): Partial<SpectralDiarizerSettings> {
  const settings: Record<string, number | boolean | string> = {};
  argv.forEach((arg, i) => {
    if (arg !== '--set') return;
    const [name, value] = (argv[i + 1] ?? '').split('=');
    if (!name || !(name in DEFAULT_DIARIZER_SETTINGS)) throw new Error(`unknown setting ${name}`);
    settings[name] =
      value === 'true'
        ? true
        : value === 'false'
          ? false
          : Number.isNaN(Number(value))
            ? value!
            : Number(value);
  });
  return settings as Partial<SpectralDiarizerSettings>;
}
