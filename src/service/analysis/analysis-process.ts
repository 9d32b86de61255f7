import { MediaDecodeError } from '../media/decode';
import type { AnalysisMessage, AnalysisRequest } from './protocol';
import { runAnalysis } from './run-analysis';
import { createToolkit } from './toolkit';

// Its priority (deferred work, below a request's decoders) is set by its parent at spawn, every thread of it
// (analysis-job.ts, background-priority.ts); the threads it starts later inherit it.

// The service went away (or killed the channel): nobody is left to read the results.
process.once('disconnect', () => process.exit(0));

/**
 * Child-process entry of the analysis: minutes of signal processing and model inference that must not
 * block the service's event loop. Reports through IPC messages (protocol.ts); the parent stores them and
 * kills this process when the run settles or is aborted.
 *
 * Not a worker thread: ending a thread while onnxruntime-node is inside a run or a session release throws a
 * C++ exception nothing catches (std::terminate), which aborted the whole service, e.g. when a recording was
 * deleted during its analysis. A process can be killed at any point.
 */
process.once('message', async (request: AnalysisRequest) => {
  const post = (message: AnalysisMessage) => process.send!(message);
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
