import { AUDIENCE_EVENT_TYPES } from '../../../shared/schemas/analysis';

/**
 * Which AudioSet classes (YAMNet display names) stand for each audience event and for the background.
 * A type's score in a patch is the largest score among its classes.
 */

export type AudienceEventType = (typeof AUDIENCE_EVENT_TYPES)[number];

export const EVENT_CLASSES: Record<AudienceEventType, readonly string[]> = {
  // "Hands" is left out: it also fires on finger snaps and single claps.
  applause: ['Applause', 'Clapping'],
  laughter: ['Laughter', 'Giggle', 'Snicker', 'Belly laugh', 'Chuckle, chortle', 'Baby laughter'],
  // "Crowd" is left out: it is the murmur of a room full of people (a pub, a foyer), which is ambience.
  cheering: ['Cheering', 'Whoop'],
  music: [
    'Music',
    'Musical instrument',
    'Singing',
    'Choir',
    'Yodeling',
    'Rapping',
    'Child singing',
    'Synthetic singing',
  ],
};

/** Classes too general to name a piece of music; `music[].label` prefers a more specific one. */
export const GENERIC_MUSIC = ['Music', 'Musical instrument'] as const;

/**
 * The background: acoustic scenes, steady noises and beds that sit under or between speech, in families of
 * near-synonyms (the tagger moves between "White noise" and "Pink noise" from one window to the next over
 * the same hiss; the profile keeps one span per family). Speech classes and the audience events are not
 * here (they are foreground), nor is music (it has `music[]`).
 */
export const AMBIENCE_FAMILIES: readonly (readonly string[])[] = [
  ['Silence'],
  ['Inside, small room', 'Inside, large room or hall', 'Inside, public space'],
  ['Outside, urban or manmade', 'Outside, rural or natural'],
  ['Noise', 'Environmental noise', 'White noise', 'Pink noise', 'Static'],
  ['Hum', 'Mains hum', 'Buzz'],
  ['Air conditioning', 'Mechanical fan', 'Engine'],
  ['Traffic noise, roadway noise', 'Vehicle'],
  ['Wind', 'Wind noise (microphone)'],
  ['Rain'],
  ['Crowd', 'Hubbub, speech noise, speech babble', 'Chatter'],
  ['Reverberation', 'Echo'],
];

export const AMBIENCE_CLASSES: readonly string[] = AMBIENCE_FAMILIES.flat();

/** What may be named as a layer under a line: the background, plus music and audience sounds heard under speech. */
export const LAYER_CLASSES: readonly string[] = [
  ...AMBIENCE_CLASSES.filter((c) => c !== 'Silence'),
  'Music',
  'Applause',
  'Laughter',
  'Cheering',
];
