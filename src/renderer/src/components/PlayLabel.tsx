import { useStore } from 'zustand';
import type { PlayerStore } from '../state/player-store';

/** The play button's label, following the transport. */
export function PlayLabel({ store }: { store: PlayerStore }) {
  const rate = useStore(store, (s) => s.rate);
  return <>{rate === 0 ? 'Play' : 'Pause'}</>;
}
