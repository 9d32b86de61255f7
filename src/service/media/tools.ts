import { execFileSync } from 'node:child_process';
import { processEnvironment } from '../config';

/**
 * Where ffmpeg and ffprobe come from. ffmpeg-static fetches its binary from outside the npm registry at
 * install time, so Takeline uses the system's ffmpeg (Debian's `ffmpeg` package, installed by the
 * README's set-up command) unless TAKELINE_FFMPEG / TAKELINE_FFPROBE name other binaries, which is how
 * a packaged desktop build points at the copies it ships in resources/.
 */
export interface MediaTools {
  ffmpeg: string;
  ffprobe: string;
  /** A decode that produces no audio for this long is stopped (a damaged file can make ffmpeg hang). */
  decodeStallMs?: number;
}

export const DEFAULT_DECODE_STALL_MS = 120_000;

export function resolveMediaTools(env: NodeJS.ProcessEnv = processEnvironment()): MediaTools {
  const stallSeconds = Number(env.TAKELINE_DECODE_STALL_SECONDS);
  return {
    ffmpeg: env.TAKELINE_FFMPEG || 'ffmpeg',
    ffprobe: env.TAKELINE_FFPROBE || 'ffprobe',
    decodeStallMs: Number.isFinite(stallSeconds) && stallSeconds > 0 ? stallSeconds * 1000 : DEFAULT_DECODE_STALL_MS,
  };
}

/** Throws a clear error when a tool cannot be run, so start-up fails loudly rather than the first upload. */
export function checkMediaTools(tools: MediaTools): void {
  for (const [name, bin] of [['ffmpeg', tools.ffmpeg], ['ffprobe', tools.ffprobe]] as const) {
    try {
      execFileSync(bin, ['-version'], { stdio: 'ignore' });
    } catch {
      throw new Error(
        `${name} was not found (tried "${bin}"). Install it (Debian/Ubuntu: apt-get install -y ffmpeg) ` +
          `or set TAKELINE_${name.toUpperCase()} to its path.`,
      );
    }
  }
}
