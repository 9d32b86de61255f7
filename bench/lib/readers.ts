/** The person reading an ASR-set file (different sources are different people), or null when unknown. */
export function speakerOf(file: string): string | null {
  if (file.startsWith('ljspeech_')) return 'ljspeech';
  if (file.startsWith('amateur_')) return 'amateur';
  const libri = file.match(/^librispeech_.*?(\d+)-\d+-\d+\.flac$/);
  if (libri) return `librispeech-${libri[1]}`;
  const arctic = file.match(/cmu_arctic_us_(\w+)_a\d+/);
  if (arctic) return `arctic-${arctic[1]}`;
  if (file.includes('sense_and_sensibility')) return 'librivox-austen';
  if (file.startsWith('jfk_')) return 'jfk';
  return null;
}
