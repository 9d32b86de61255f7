/**
 * The transcript, virtualised: only segments in view are rendered, measured once shown, so an hour of
 * speech scrolls smoothly. Follows playback (the current word lights up, the current line scrolls into
 * view unless the editor scrolled away in the last few seconds); clicking a word seeks to it.
 */
import { memo, useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useStore } from 'zustand';
import type { TranscriptSegment } from '../api/types';
import { wordShade } from '../lib/confidence';
import { speakerColor } from '../lib/format';
import { formatReadout, type Timebase } from '../lib/timecode';
import { activeSegmentIndex, activeWordIndex, wordMatches } from '../lib/transcript-index';
import { estimateRowHeight, rowOffsets, visibleRange } from '../lib/virtual-window';
import type { PlayerStore } from '../state/player-store';

const USER_SCROLL_HOLD_MS = 3000;
/** Estimate of a row before it is measured: text line height and the row's padding and header. */
const ROW_LINE_PX = 23;
const ROW_CHROME_PX = 34;

export function Transcript(props: {
  segments: TranscriptSegment[];
  /** Indices into `segments` to show (search results), in order. */
  visible: number[];
  query: string;
  store: PlayerStore;
  timebase: Timebase | null;
  speakerName: (label: string) => string;
  onSeek: (t: number) => void;
  /** The line whose analysis is open, and how a click on a line opens it. */
  selectedId?: number | null;
  onSelectLine?: (id: number) => void;
  /** Clicking a line's speaker opens the speaker fixes for that line. */
  onSpeakerClick?: (segment: TranscriptSegment) => void;
  /** Word corrections: the line (and word, or null for the line) being edited, its edit box, and how a double-click starts one. */
  editing?: { segmentId: number; word: number | null } | null;
  editor?: ReactNode;
  onEditWord?: (segmentId: number, word: number | null) => void;
  /** The doubtful word Tab picked: segment id and word index. */
  focusWord?: { segmentId: number; word: number } | null;
}) {
  const { segments, visible, query, store, timebase, speakerName, onSeek, selectedId, onSelectLine, onSpeakerClick } = props;
  const { editing, editor, onEditWord, focusWord } = props;
  const scrollRef = useRef<HTMLDivElement>(null);
  const [viewport, setViewport] = useState({ top: 0, height: 600, width: 800 });
  // Measured heights by segment index, with the width they were measured at (wrapping depends on it).
  const measured = useRef(new Map<number, { height: number; width: number }>());
  const [measureVersion, setMeasureVersion] = useState(0);
  const pendingMeasure = useRef(0);
  const lastUserScroll = useRef(0);
  const programmaticScroll = useRef(false);

  const charsPerLine = Math.max(20, Math.floor((viewport.width - 170) / 8));
  const offsets = useMemo(() => {
    const heights = visible.map((i) => {
      const m = measured.current.get(i);
      // A measurement taken at another width is stale (the text wraps differently): estimate instead.
      return m && Math.abs(m.width - viewport.width) < 1
        ? m.height
        : estimateRowHeight(segments[i]!.text.length, charsPerLine, ROW_LINE_PX, ROW_CHROME_PX);
    });
    return rowOffsets(heights);
    // measureVersion: heights map changed
  }, [visible, segments, charsPerLine, viewport.width, measureVersion]);
  const range = visibleRange(offsets, viewport.top, viewport.height, 6);

  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const update = () => setViewport({ top: el.scrollTop, height: el.clientHeight, width: el.clientWidth });
    update();
    const ro = new ResizeObserver(update);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  // Every rendered row is watched for its size: the first layout, a web font arriving, a width that wraps
  // the text anew and an edited line all re-measure it, so the reserved height is always the row's own.
  // (Measuring once in a layout effect missed rows whose measurement was cleared after they rendered: the
  // list then kept the estimate, ~14 px short of a two-line speaker/time header, and rows overlapped.)
  const observer = useMemo(
    () =>
      new ResizeObserver((entries) => {
        let changed = false;
        for (const entry of entries) {
          const el = entry.target as HTMLElement;
          const index = Number(el.dataset.index);
          const box = entry.borderBoxSize?.[0];
          const height = box ? box.blockSize : el.offsetHeight;
          const width = scrollRef.current?.clientWidth ?? el.offsetWidth;
          const old = measured.current.get(index);
          if (!old || Math.abs(old.height - height) > 0.5 || Math.abs(old.width - width) >= 1) {
            measured.current.set(index, { height, width });
            changed = true;
          }
        }
        if (changed) {
          cancelAnimationFrame(pendingMeasure.current);
          pendingMeasure.current = requestAnimationFrame(() => setMeasureVersion((v) => v + 1));
        }
      }),
    [],
  );
  useEffect(() => () => observer.disconnect(), [observer]);

  const measure = useCallback(
    (el: HTMLElement | null, previous: HTMLElement | null) => {
      if (previous) observer.unobserve(previous);
      if (el) observer.observe(el, { box: 'border-box' });
    },
    [observer],
  );

  // Follow playback: the segment playing now, as a position in the visible list.
  const activeSeg = useStore(store, (s) => activeSegmentIndex(segments, s.currentTime));
  const activeRow = useMemo(() => visible.indexOf(activeSeg), [visible, activeSeg]);
  useEffect(() => {
    const el = scrollRef.current;
    if (!el || activeRow < 0) return;
    if (Date.now() - lastUserScroll.current < USER_SCROLL_HOLD_MS) return;
    const top = offsets[activeRow]!;
    const bottom = offsets[activeRow + 1]!;
    if (top >= el.scrollTop && bottom <= el.scrollTop + el.clientHeight) return;
    programmaticScroll.current = true;
    el.scrollTop = Math.max(0, top - el.clientHeight / 3);
  }, [activeRow, offsets]);

  const rows = [];
  for (let r = range.start; r < range.end; r++) {
    const i = visible[r]!;
    rows.push(
      <SegmentRow
        key={i}
        index={i}
        segment={segments[i]!}
        top={offsets[r]!}
        active={i === activeSeg}
        selected={segments[i]!.id === selectedId}
        onSelectLine={onSelectLine}
        store={store}
        query={query}
        timebase={timebase}
        speakerName={speakerName}
        onSeek={onSeek}
        onSpeakerClick={onSpeakerClick}
        measure={measure}
        editWord={editing?.segmentId === segments[i]!.id ? editing.word : undefined}
        editor={editing?.segmentId === segments[i]!.id ? editor : undefined}
        onEditWord={onEditWord}
        focusWord={focusWord?.segmentId === segments[i]!.id ? focusWord.word : -1}
      />,
    );
  }

  return (
    <div
      className="transcript-scroll"
      ref={scrollRef}
      data-testid="transcript"
      tabIndex={-1}
      onScroll={(e) => {
        const el = e.currentTarget;
        if (programmaticScroll.current) programmaticScroll.current = false;
        else lastUserScroll.current = Date.now();
        setViewport((v) => ({ ...v, top: el.scrollTop }));
      }}
    >
      <div style={{ height: offsets[offsets.length - 1], position: 'relative' }}>{rows}</div>
    </div>
  );
}

const SegmentRow = memo(function SegmentRow(props: {
  index: number;
  segment: TranscriptSegment;
  top: number;
  active: boolean;
  selected: boolean;
  onSelectLine?: (id: number) => void;
  store: PlayerStore;
  query: string;
  timebase: Timebase | null;
  speakerName: (label: string) => string;
  onSeek: (t: number) => void;
  onSpeakerClick?: (segment: TranscriptSegment) => void;
  measure: (el: HTMLElement | null, previous: HTMLElement | null) => void;
  /** undefined: not edited; null: the whole line is; a number: that word is. */
  editWord?: number | null;
  editor?: ReactNode;
  onEditWord?: (segmentId: number, word: number | null) => void;
  focusWord: number;
}) {
  const {
    index,
    segment,
    top,
    active,
    selected,
    onSelectLine,
    store,
    query,
    timebase,
    speakerName,
    onSeek,
    onSpeakerClick,
    measure,
    editWord,
    editor,
    onEditWord,
    focusWord,
  } = props;
  // Only the active row re-renders as the playhead moves through its words.
  const currentWord = useStore(store, (s) => (active ? activeWordIndex(segment.words, s.currentTime) : -1));
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    measure(el, null);
    return () => measure(null, el);
  }, [measure]);
  return (
    <div
      ref={ref}
      data-index={index}
      className={`seg${active ? ' active' : ''}${selected ? ' selected' : ''}`}
      style={{ top, borderLeftColor: speakerColor(segment.speaker) }}
      data-testid="segment"
      data-segment-id={segment.id}
      data-speaker={segment.speaker}
      data-confirmed={segment.confirmed ? 'true' : undefined}
      data-selected={selected ? 'true' : undefined}
      onClick={() => onSelectLine?.(segment.id)}
    >
      <div className="meta" onClick={() => onSeek(segment.start)} title="Go to the start of this line">
        {onSpeakerClick ? (
          <button
            type="button"
            className="who"
            style={{ color: speakerColor(segment.speaker) }}
            title="Change the speaker of this line or some of its words, or split it"
            data-testid="line-speaker"
            onClick={(e) => {
              e.stopPropagation();
              onSpeakerClick(segment);
            }}
          >
            {speakerName(segment.speaker)}
          </button>
        ) : (
          <span className="who" style={{ color: speakerColor(segment.speaker) }}>
            {speakerName(segment.speaker)}
          </span>
        )}
        {formatReadout(segment.start, timebase)}
        {segment.confirmed && (
          <span className="checked" data-testid="line-checked" title="You saved this whole line: its words are checked, none is shaded doubtful">
            ✓ checked
          </span>
        )}
      </div>
      <div
        className="text"
        onDoubleClick={() => {
          if (editWord === undefined) onEditWord?.(segment.id, null);
        }}
      >
        {editWord === null
          ? editor
          : segment.words.length === 0
            ? segment.text
            : segment.words.map((w, wi) =>
                wi === editWord ? (
                  <span key={wi}>{editor} </span>
                ) : (
                  <span key={wi}>
                    <span
                      className={`w${wi === currentWord ? ' cur' : ''}${query && wordMatches(w.word, query) ? ' hit' : ''} ${wordShade(w.confidence, segment)}${wi === focusWord ? ' focus' : ''}`}
                      data-testid="word"
                      data-start={w.start}
                      data-confidence={w.confidence}
                      title={`${formatReadout(w.start, timebase)} · ${segment.confirmed ? `checked by you (the recognizer was ${Math.round(w.confidence * 100)}% sure)` : `confidence ${Math.round(w.confidence * 100)}%`} (double-click to correct)`}
                      onClick={() => onSeek(w.start)}
                      onDoubleClick={(e) => {
                        e.stopPropagation();
                        onEditWord?.(segment.id, wi);
                      }}
                    >
                      {w.word.trim()}
                    </span>{' '}
                  </span>
                ),
              )}
      </div>
    </div>
  );
});
