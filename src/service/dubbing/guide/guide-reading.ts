import type { MediaTools } from '../../media/tools';
import { resampleMono } from '../../media/resample';
import type { Aligner } from '../../speech/types';
import { SAMPLE_RATE } from '../../speech/types';
import { DEFAULT_FIT_LIMITS, fitToSlot, type SlotFit } from '../../speech/synthesis/slot-fit';
import { mapTime, targetLength } from '../../dsp/time-map';
import { GUIDE_PITCH_RANGE, medianF0, planGuide, semitonesToward } from './guide-line';
import { contourShift } from './pitch-contour';
import { pitchTrack } from '../../speech/prosody/pitch';
import { warpAlongMap } from '../../dsp/time-warp';
import { rubberbandPitch } from './rubberband';

export interface GuideRequest {
  aligner: Aligner | null;
  tools: MediaTools;
  rubberband: string;
  /** The synthesized reading, its engine silence trimmed. */
  reading: Float32Array;
  readingRate: number;
  text: string;
  /** The original line's dialogue (mono), from its original start, and the words it speaks. */
  original: Float32Array;
  originalRate: number;
  originalText: string;
  line: { start: number; end: number };
  /** The furthest a line may run into the silence after it (as for an unguided line). */
  nextLimit: number;
}

export interface GuidedReading {
  /** The warped reading at `readingRate`, from the slot's start (silence before the first word included). */
  samples: Float32Array;
  fit: SlotFit;
  semitones: number;
  wordByWord: boolean;
}

/**
 * A reading that follows the original performance: both are aligned to their texts, the reading is warped
 * word by word onto the original's word timings (pitch kept) and its pitch contour moved onto the original's
 * (the median shift, varied over time by the smoothed frame-by-frame difference; Rubber Band, formants kept), all within the slot (borrowing silence after the line as an unguided line may; squeezed
 * uniformly when even that is too short). Null when there is nothing to follow: no aligner, or a side with no
 * aligned words.
 */
export async function guideReading(request: GuideRequest, signal?: AbortSignal): Promise<GuidedReading | null> {
  const { aligner, tools } = request;
  if (!aligner) return null;
  const [reading16k, original16k] = await Promise.all([
    resampleMono(tools, request.reading, request.readingRate, SAMPLE_RATE, signal),
    resampleMono(tools, request.original, request.originalRate, SAMPLE_RATE, signal),
  ]);
  const [readingWords, originalWords] = await Promise.all([aligner.align(reading16k, request.text, { signal }), aligner.align(original16k, request.originalText, { signal })]);
  if (readingWords.length === 0 || originalWords.length === 0) return null;
  const readingSeconds = request.reading.length / request.readingRate;
  // The original's timing as it is, then within the slot (speed 1: the map alone sets the duration).
  const free = planGuide(readingWords, originalWords, readingSeconds, Infinity);
  const fit = fitToSlot(targetLength(free.anchors), request.line, request.nextLimit, DEFAULT_FIT_LIMITS, 1);
  const room = fit.slot.end - fit.slot.start;
  const plan = fit.overflow > 0 ? planGuide(readingWords, originalWords, readingSeconds, room) : free;
  const readingPitch = pitchTrack(reading16k, SAMPLE_RATE, GUIDE_PITCH_RANGE);
  const originalPitch = pitchTrack(original16k, SAMPLE_RATE, GUIDE_PITCH_RANGE);
  const semitones = semitonesToward(medianF0(readingPitch), medianF0(originalPitch));
  // Timing by WSOLA along the map (each anchor placed to within its search tolerance), then the pitch: the
  // median shift, moved over time toward the original's contour (both tracks put on the warped timeline: the
  // reading's through the map, the original's through the squeeze).
  const warped = warpAlongMap(request.reading, request.readingRate, plan.anchors);
  // Only words paired one to one put the two contours on one timeline; a line followed by its span keeps the median shift.
  const contour = plan.wordByWord
    ? contourShift(
    readingPitch,
    (t) => mapTime(plan.anchors, t),
    originalPitch,
    (t) => t * plan.squeeze,
    semitones,
    warped.length / request.readingRate,
  )
    : undefined;
  const samples = await rubberbandPitch(request.rubberband, warped, request.readingRate, semitones, signal, contour);
  const flags = fit.flags.filter((f) => f !== 'does_not_fit' && f !== 'stretched');
  return {
    samples,
    fit: { stretch: 1, slot: fit.slot, overflow: 0, flags: plan.squeeze < 1 ? [...flags, 'stretched'] : flags },
    semitones,
    wordByWord: plan.wordByWord,
  };
}
