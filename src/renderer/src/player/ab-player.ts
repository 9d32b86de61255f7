/**
 * A/B playback of one stretch of a dub: plays [start, end) of one revision's audio in its own media
 * element (the main transport keeps its place), stopping at the end. Owns no React state; reports what
 * it plays through `onChange`.
 */
export interface AbRequest {
  url: string;
  start: number;
  end: number;
}

export class AbPlayer {
  readonly element: HTMLAudioElement;
  private stopAt = 0;
  private token = 0;

  constructor(private readonly onChange: (playing: boolean) => void) {
    this.element = new Audio();
    this.element.preload = 'auto';
    this.element.dataset.testid = 'ab-audio';
    this.element.addEventListener('timeupdate', () => {
      if (this.element.currentTime >= this.stopAt) this.stop();
    });
    this.element.addEventListener('ended', () => this.stop());
    this.element.addEventListener('pause', () => this.onChange(false));
  }

  async play(request: AbRequest): Promise<void> {
    const token = ++this.token;
    this.element.pause();
    if (this.element.src !== request.url) {
      this.element.src = request.url;
      await new Promise<void>((resolve, reject) => {
        const ok = () => (cleanup(), resolve());
        const fail = () => (cleanup(), reject(new Error('the revision could not be loaded')));
        const cleanup = () => {
          this.element.removeEventListener('loadedmetadata', ok);
          this.element.removeEventListener('error', fail);
        };
        this.element.addEventListener('loadedmetadata', ok);
        this.element.addEventListener('error', fail);
      });
    }
    // A newer request came in while this one loaded.
    if (token !== this.token) return;
    this.stopAt = request.end;
    this.element.currentTime = request.start;
    await this.element.play();
    this.onChange(true);
  }

  stop(): void {
    if (!this.element.paused) this.element.pause();
    this.onChange(false);
  }

  destroy(): void {
    this.token++;
    this.element.pause();
    this.element.removeAttribute('src');
    this.element.load();
  }
}
