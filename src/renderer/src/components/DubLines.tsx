import { Fragment, useEffect, useRef, useState } from 'react';
import type { ReviewStatus } from '../api/dub-workflow';
import type { DubLine } from '../api/types';
import { cutLabel, flagLabel, isWarningFlag, type VoiceChoice } from '../lib/dub';
import { fitAdvice, LINE_SPEEDS, LINE_SPEED_MAX, REVIEW_LABELS, wordIndexAtCaret, type RoomPlan } from '../lib/dub-lines';
import { speakerColor } from '../lib/format';
import { cueOut } from '../../../shared/dubbing/cue-out';
import { formatReadout, type Timebase } from '../lib/timecode';
import type { DubEdits } from './use-dub-edits';

export interface DubLinesProps {
  lines: DubLine[];
  voices: VoiceChoice[];
  /** The recording's timebase: line times show as its timecode (clock time without one). */
  timebase: Timebase | null;
  /** Which line A/B is playing, and which side. */
  playing: { lineId: number; side: 'A' | 'B' } | null;
  selected: number | null;
  /** The line whose notes are open. */
  notesOpen: number | null;
  disabled: boolean;
  /** A viewer's: the lines are shown and notes may be left, nothing else changed. */
  readOnly?: boolean;
  edits: DubEdits;
  /** For lines that did not fit: the retiming that makes room (lib/dub-lines `makeRoom`), where there is one. */
  rooms: ReadonlyMap<number, RoomPlan>;
  /** Each line's number as shown: its position among all the dub's lines in time (lib/dub-lines `lineNumbers`). */
  numbers: ReadonlyMap<number, number>;
  onSelect(line: DubLine): void;
  onNotes(lineId: number): void;
  onAb(line: DubLine, side: 'A' | 'B'): void;
}

const REVIEW_ORDER: ReviewStatus[] = ['todo', 'needs_changes', 'approved'];

/**
 * The lines of a dub: in and out on the recording's timebase, original and corrected text side by side (the
 * corrected text edited in place: Enter saves, Escape puts back), a voice and a speed per line, its state
 * and the last revoice's flags, its review status and notes, and A/B playback of the line before and after.
 */
export function DubLines({ lines, voices, timebase, playing, selected, notesOpen, disabled, readOnly = false, edits, rooms, numbers, onSelect, onNotes, onAb }: DubLinesProps) {
  return (
    <table className="list dub-lines" data-testid="dub-lines">
      {/* Fixed widths: the table fits its panel at 1280 px, and a flag or a longer text never moves the columns. */}
      <colgroup>
        <col className="c-num" />
        <col className="c-time" />
        <col className="c-original" />
        <col className="c-line" />
        <col className="c-voice" />
        <col className="c-state" />
        <col className="c-review" />
      </colgroup>
      <thead>
        <tr>
          <th>#</th>
          <th>In / out · A/B</th>
          <th>Original</th>
          <th>Line</th>
          <th>Voice · speed · guide</th>
          <th>State</th>
          <th>Review</th>
        </tr>
      </thead>
      <tbody>
        {lines.map((line) => (
          <Fragment key={line.id}>
            <LineRow
              line={line}
              voices={voices}
              timebase={timebase}
              playing={playing?.lineId === line.id ? playing.side : null}
              selected={selected === line.id}
              notesShown={notesOpen === line.id}
              disabled={disabled || readOnly}
              edits={edits}
              room={rooms.get(line.id) ?? null}
              number={numbers.get(line.id) ?? line.id}
              nextNumber={(n) => numbers.get(n) ?? n}
              onSelect={onSelect}
              onNotes={onNotes}
              onAb={onAb}
            />
            {notesOpen === line.id && <NotesRow line={line} edits={edits} disabled={disabled} />}
          </Fragment>
        ))}
      </tbody>
    </table>
  );
}

function LineRow({
  line,
  voices,
  timebase,
  playing,
  selected,
  notesShown,
  disabled,
  edits,
  room,
  onSelect,
  onNotes,
  onAb,
  number,
  nextNumber,
}: Omit<DubLinesProps, 'lines' | 'playing' | 'selected' | 'notesOpen' | 'rooms' | 'numbers'> & {
  line: DubLine;
  number: number;
  /** The shown number of another line (by id). */
  nextNumber: (id: number) => number;
  playing: 'A' | 'B' | null;
  selected: boolean;
  notesShown: boolean;
  room: RoomPlan | null;
}) {
  const [draft, setDraft] = useState(line.text);
  const draftRef = useRef(draft);
  draftRef.current = draft;
  // The text the draft was started from; when the line changes under an unsaved draft (another window, an
  // undo), the draft is kept and the new text is offered, never overwritten silently.
  const baseRef = useRef(line.text);
  const [changedTo, setChangedTo] = useState<string | null>(null);
  const [splitHint, setSplitHint] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  useEffect(() => {
    if (line.text === baseRef.current) return;
    const typing = draftRef.current.trim() !== baseRef.current && draftRef.current.trim() !== line.text;
    baseRef.current = line.text;
    if (typing) setChangedTo(line.text);
    else {
      setDraft(line.text);
      setChangedTo(null);
    }
  }, [line.text]);
  const dirty = draft.trim() !== line.text;

  async function save(patch: { text?: string; voice?: string | null; guide?: 'original' | null }) {
    setSaving(true);
    const ok = await edits.saveLine(line, patch);
    setSaving(false);
    if (ok && patch.text !== undefined) setChangedTo(null);
  }

  const flags = line.state === 'voiced' ? (line.render?.flags ?? []) : [];
  const advice = line.state === 'voiced' ? fitAdvice(line.render) : { kind: 'fits' as const };
  return (
    <tr
      data-testid="dub-line"
      data-line={line.id}
      data-state={line.state}
      data-review={line.review_status}
      data-selected={selected ? 'true' : 'false'}
      className={`${line.needs_revoice ? 'pending' : ''}${selected ? ' selected' : ''}`}
      onClick={(e) => {
        // Controls inside the row keep their own clicks.
        if (!(e.target as HTMLElement).closest('textarea, select, button, input, a')) onSelect(line);
      }}
    >
      <td className="num" data-testid="line-number">
        {number}
      </td>
      <td className="num">
        <button className="ghost time" onClick={() => onSelect(line)} title="Select the line and put the playhead at its start" data-testid="line-time">
          <span className="swatch" style={{ background: speakerColor(line.speaker) }} />
          {line.speaker} <span data-testid="line-in">{formatReadout(line.start, timebase)}</span>
        </button>
        {/* Where the dub's voice of the line ends, as the cue sheet says: past `end` when its reading borrowed the quiet after it. */}
        <div
          className={`hint time-out${cueOut(line) > line.end ? ' borrowed' : ''}`}
          data-testid="line-out"
          title={cueOut(line) > line.end ? `The voice runs past the line's end (${formatReadout(line.end, timebase)}) into the quiet after it; the cue sheet's out is here` : undefined}
        >
          {formatReadout(cueOut(line), timebase)}
        </div>
        <div className="ab">
          {(['A', 'B'] as const).map((side) => (
            <button
              key={side}
              className={playing === side ? 'primary' : undefined}
              title={side === 'A' ? 'Play this line before (the previous revision)' : 'Play this line now (the current revision)'}
              data-testid={`ab-${side}`}
              onClick={() => onAb(line, side)}
            >
              {side}
            </button>
          ))}
        </div>
      </td>
      <td className="original" data-testid="original-text">
        {line.original_text}
      </td>
      <td>
        <textarea
          rows={Math.min(6, Math.max(2, Math.ceil(draft.length / 30) + 1))}
          className={`line-text${dirty ? ' dirty' : ''}`}
          value={draft}
          disabled={disabled || saving}
          aria-label={`Line ${number} text`}
          data-testid="line-text"
          title="Enter saves · Escape puts back · Alt+S splits the line at the caret"
          onChange={(e) => {
            setDraft(e.target.value);
            setSplitHint(null);
          }}
          onKeyDown={(e) => {
            // Alt+S splits the line at the caret's word (the saved text: an unsaved edit is saved or put back first).
            if (e.altKey && e.code === 'KeyS') {
              e.preventDefault();
              const index = wordIndexAtCaret(line.text, e.currentTarget.selectionStart);
              if (dirty) setSplitHint('Save (Enter) or put back (Escape) the text before splitting it.');
              else if (index === null) setSplitHint('Put the caret between two words to split there.');
              else {
                setSplitHint(null);
                void edits.splitAtWord(line, index);
              }
              return;
            }
            // A line is one paragraph: Enter saves, it never adds a line break.
            if (e.key === 'Enter') {
              e.preventDefault();
              if (dirty) void save({ text: draft });
            } else if (e.key === 'Escape') {
              setDraft(line.text);
              setChangedTo(null);
              (e.target as HTMLTextAreaElement).blur();
            }
          }}
        />
        {changedTo !== null ? (
          <div className="field-error" data-testid="changed-elsewhere">
            Changed elsewhere to “{changedTo}” — your text is kept: Enter saves it, Escape takes the new one.
          </div>
        ) : splitHint ? (
          <div className="field-error" data-testid="split-hint">
            {splitHint}
          </div>
        ) : (
          dirty && <div className="hint">Enter saves · Escape puts back</div>
        )}
      </td>
      <td>
        <select
          value={line.voice ?? ''}
          disabled={disabled || saving}
          aria-label={`Line ${number} voice`}
          title={voices.find((v) => v.ref === (line.voice ?? line.effective_voice))?.label ?? line.effective_voice ?? ''}
          data-testid="line-voice"
          onChange={(e) => void save({ voice: e.target.value || null })}
        >
          {/* Short labels (the voice, then its engine): the column is narrow and every choice must show whole. */}
          <option value="">Speaker’s ({shortVoice(line.effective_voice)})</option>
          {voices.map((v) => (
            <option key={v.ref} value={v.ref}>
              {v.short}
            </option>
          ))}
        </select>
        <div className="row speed">
          <select
            value={line.speed === null ? '' : String(line.speed)}
            disabled={disabled || saving}
            aria-label={`Line ${number} speed`}
            title="Speaking rate of the revoiced line, pitch kept (0.8–1.2); the voice’s pace fits the slot by itself"
            data-testid="line-speed"
            onChange={(e) => void edits.setSpeed(line, e.target.value === '' ? null : Number(e.target.value))}
          >
            <option value="">Fit to slot</option>
            {LINE_SPEEDS.map((s) => (
              <option key={s} value={String(s)}>
                {s.toFixed(2)}×
              </option>
            ))}
          </select>
        </div>
        <div className="row speed">
          {/* The line's own guide; empty falls back to the dub's switch (the API has no "never" for one line). */}
          <select
            value={line.guide ?? ''}
            disabled={disabled || saving}
            aria-label={`Line ${number} guide`}
            title="Whether this line's revoice follows the original actor's word timings and pitch (its own choice, or the dub's)"
            data-testid="line-guide"
            data-effective={line.effective_guide ?? ''}
            onChange={(e) => void save({ guide: e.target.value === 'original' ? 'original' : null })}
          >
            <option value="">Dub’s guide{line.guide ? '' : line.effective_guide === 'original' ? ' (actor)' : ' (slot)'}</option>
            <option value="original">Follow actor</option>
          </select>
        </div>
        {advice.kind === 'faster' && (
          <button className="fit-advice" data-testid="fit-faster" disabled={disabled || saving} onClick={() => void edits.setSpeed(line, advice.speed)} title="Revoice this line at the speed that makes it fit its slot">
            Fits at {advice.speed.toFixed(2)}×
          </button>
        )}
        {advice.kind === 'too_long' && (
          <div className="field-error" data-testid="fit-too-long" data-needed={advice.needed}>
            Needs {advice.needed.toFixed(2)}× to fit (at most {LINE_SPEED_MAX}×): shorten the text
          </div>
        )}
        {room && (
          <button
            className="fit-advice"
            data-testid="make-room"
            disabled={disabled || saving}
            onClick={() => void edits.makeRoom(line, room)}
            title={`End this line where its reading ended (${formatReadout(room.end, timebase)})${room.next ? `; line ${nextNumber(room.next.id)} then starts there, shortened` : ''}. Two undoable edits; Revoice voices it again.`}
          >
            Make room{room.next ? `: shorten line ${nextNumber(room.next.id)}` : ''}
          </button>
        )}
      </td>
      <td>
        {/* A voiced line that does not fit is a problem, not a success: its state shows red, not green. */}
        <span
          className={`badge ${line.state}${flags.includes('does_not_fit') ? ' problem' : ''}`}
          data-testid="line-state"
          title={flags.includes('does_not_fit') ? 'Voiced, but the new speech was cut at the end of its slot: shorten the text' : undefined}
        >
          {line.state}
        </span>
        {flags.map((f) => (
          <span key={f} className={`badge flag${isWarningFlag(f) ? ' warn' : ''}`} data-testid="line-flag" data-flag={f}>
            {f === 'does_not_fit' && line.render ? (
              <>
                {flagLabel(f)}: <span className="amount">{cutLabel(line.render)}</span>
              </>
            ) : (
              flagLabel(f)
            )}
          </span>
        ))}
      </td>
      <td className="review">
        <select
          className={`review-${line.review_status}`}
          value={line.review_status}
          disabled={disabled}
          aria-label={`Line ${number} review`}
          data-testid="line-review"
          onChange={(e) => void edits.review(line, e.target.value as ReviewStatus)}
        >
          {REVIEW_ORDER.map((s) => (
            <option key={s} value={s}>
              {REVIEW_LABELS[s]}
            </option>
          ))}
        </select>
        <button className={`ghost notes-toggle${notesShown ? ' open' : ''}`} onClick={() => onNotes(line.id)} data-testid="line-notes-toggle" aria-expanded={notesShown}>
          Notes ({line.notes.length})
        </button>
      </td>
    </tr>
  );
}

/** A line's notes (who, when, what), oldest first, and a box to add one (Enter adds). */
function NotesRow({ line, edits, disabled }: { line: DubLine; edits: DubEdits; disabled: boolean }) {
  const [text, setText] = useState('');
  const [saving, setSaving] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  async function add() {
    if (!text.trim()) return;
    setSaving(true);
    const ok = await edits.addNote(line, text.trim());
    setSaving(false);
    if (ok) setText('');
  }
  return (
    <tr className="notes-row" data-testid="line-notes" data-line={line.id}>
      <td />
      <td colSpan={6}>
        {line.notes.length === 0 ? (
          <div className="hint">No notes on this line yet.</div>
        ) : (
          <ul className="plain-list notes">
            {line.notes.map((n) => (
              <li key={n.id} data-testid="line-note">
                <b>{n.author}</b> <span className="hint">{new Date(n.created_at).toLocaleString()}</span> {n.text}
              </li>
            ))}
          </ul>
        )}
        <div className="row">
          <input
            ref={input}
            type="text"
            value={text}
            maxLength={2000}
            placeholder="Add a note (Enter adds)"
            disabled={disabled || saving}
            aria-label={`Note on line ${line.id}`}
            data-testid="note-input"
            onChange={(e) => setText(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                void add();
              } else if (e.key === 'Escape') (e.target as HTMLInputElement).blur();
            }}
          />
          <button onClick={() => void add()} disabled={disabled || saving || !text.trim()} data-testid="add-note">
            Add note
          </button>
        </div>
      </td>
    </tr>
  );
}

/** "festival-hts/slt" → "slt": the speaker's voice in the default choice, kept short. */
function shortVoice(ref: string | null | undefined): string {
  if (!ref) return 'none installed';
  return ref.slice(ref.indexOf('/') + 1);
}
