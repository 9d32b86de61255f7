/**
 * Marker glyph shapes, drawn with CSS (a clip path on a small box) so the waveform layer and the legend
 * draw the same glyph. Shape as well as colour tells kinds apart, for readers who do not see colour well.
 */
export const SHAPES = [
  'circle',
  'square',
  'diamond',
  'triangle',
  'triangle-down',
  'hexagon',
  'star',
  'cross',
] as const;
export type MarkerShape = (typeof SHAPES)[number];

const CLIP: Record<MarkerShape, string> = {
  circle: 'circle(50% at 50% 50%)',
  square: 'inset(8% 8% 8% 8%)',
  diamond: 'polygon(50% 0, 100% 50%, 50% 100%, 0 50%)',
  triangle: 'polygon(50% 0, 100% 100%, 0 100%)',
  'triangle-down': 'polygon(0 0, 100% 0, 50% 100%)',
  hexagon: 'polygon(25% 0, 75% 0, 100% 50%, 75% 100%, 25% 100%, 0 50%)',
  star: 'polygon(50% 0, 61% 35%, 98% 35%, 68% 57%, 79% 91%, 50% 70%, 21% 91%, 32% 57%, 2% 35%, 39% 35%)',
  cross:
    'polygon(35% 0, 65% 0, 65% 35%, 100% 35%, 100% 65%, 65% 65%, 65% 100%, 35% 100%, 35% 65%, 0 65%, 0 35%, 35% 35%)',
};

/** Inline style of a glyph of `size` pixels in `colour`. */
export function glyphStyle(shape: MarkerShape, colour: string, size: number): Record<string, string> {
  return {
    width: `${size}px`,
    height: `${size}px`,
    background: colour,
    clipPath: CLIP[shape],
    flex: 'none',
  };
}
