import { ProcessPool } from '../../../process-pool';
import { BatchProcess, type BatchProcessOptions } from './batch-process';

/**
 * A few BatchProcess workers (one per core by default, two at most) with a FIFO queue. With `idleSeconds`
 * they end once the pool has had nothing to do for that long (each decoder holds ~110 MB, which an editor's
 * other tools want back between transcriptions). An aborted job being decoded kills its process,
 * which starts again on the next job.
 */
export class DecoderPool extends ProcessPool<BatchProcess> {
  constructor(options: BatchProcessOptions, size: number, idleSeconds?: number) {
    super(() => new BatchProcess(options), size, idleSeconds);
  }
}
