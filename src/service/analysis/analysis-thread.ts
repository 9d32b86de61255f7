import { parentPort } from 'node:worker_threads';
import { MediaDecodeError } from '../media/decode';
import type { AnalysisMessage, AnalysisRequest } from './protocol';
import { runAnalysis } from './run-analysis';
import { createToolkit } from './toolkit';
import { lowerThisThreadPriority } from '../jobs/background-priority';

// Below the service's event loop, so HTTP reads stay fast while this thread computes.
lowerThisThreadPriority();

/**
 * Worker-thread entry of the analysis: minutes of signal processing and model inference that must not
 * block the service's event loop. Reports through messages (protocol.ts); the parent stores them.
 */
parentPort?.once('message', async (request: AnalysisRequest) => {
  const post = (message: AnalysisMessage) => parentPort!.postMessage(message);
  const kit = createToolkit(request);
  try {
    await runAnalysis(request, kit, post);
    post({ type: 'done' });
  } catch (error) {
    if (error instanceof MediaDecodeError && error.code === 'no_audio_stream') {
      post({ type: 'unavailable', reason: 'The recording has no audio stream.' });
      post({ type: 'done' });
    } else if (error instanceof MediaDecodeError) {
      post({ type: 'failed', message: 'The recording could not be decoded; it may be damaged or missing.', forUser: true });
    } else {
      post({ type: 'failed', message: (error as Error)?.stack ?? String(error), forUser: false });
    }
  } finally {
    await kit.close();
  }
});
