import { useEffect, useState } from 'react';
import type { DubLine } from '../api/types';
import { cutLabel, flagLabel, isWarningFlag, type VoiceChoice } from '../lib/dub';
import { speakerColor } from '../lib/format';
import { formatReadout } from '../lib/timecode';

export interface DubLinesProps {
  lines: DubLine[];
  voices: VoiceChoice[];
  /** Which line A/B is playing, and which side. */
  playing: { lineId: number; side: 'A' | 'B' } | null;
  disabled: boolean;
  onSave(line: DubLine, patch: { text?: string; voice?: string | null }): Promise<boolean>;
  onSeek(seconds: number): void;
  onAb(line: DubLine, side: 'A' | 'B'): void;
}

/**
 * The lines of a dub: original and corrected text side by side, the corrected text edited in place
 * (Enter saves, Escape puts back), a voice per line, its state and the last revoice's flags, and A/B
 * playback of the line before and after.
 */
export function DubLines({ lines, voices, playing, disabled, onSave, onSeek, onAb }: DubLinesProps) {
  return (
    <table className="list dub-lines" data-testid="dub-lines">
      <thead>
        <tr>
          <th>#</th>
          <th>Time</th>
          <th>Original</th>
          <th>Line</th>
          <th>Voice</th>
          <th>State</th>
          <th>A/B</th>
        </tr>
      </thead>
      <tbody>
        {lines.map((line) => (
          <LineRow
            key={line.id}
            line={line}
            voices={voices}
            playing={playing?.lineId === line.id ? playing.side : null}
            disabled={disabled}
            onSave={onSave}
            onSeek={onSeek}
            onAb={onAb}
          />
        ))}
      </tbody>
    </table>
  );
}

function LineRow({
  line,
  voices,
  playing,
  disabled,
  onSave,
  onSeek,
  onAb,
}: Omit<DubLinesProps, 'lines' | 'playing'> & { line: DubLine; playing: 'A' | 'B' | null }) {
  const [draft, setDraft] = useState(line.text);
  const [saving, setSaving] = useState(false);
  // A saved or reloaded line replaces the draft.
  useEffect(() => setDraft(line.text), [line.text]);
  const dirty = draft.trim() !== line.text;

  async function save(patch: { text?: string; voice?: string | null }) {
    setSaving(true);
    const ok = await onSave(line, patch);
    setSaving(false);
    if (!ok && patch.text !== undefined) setDraft(line.text);
  }

  const flags = line.state === 'voiced' ? (line.render?.flags ?? []) : [];
  return (
    <tr data-testid="dub-line" data-line={line.id} data-state={line.state} className={line.needs_revoice ? 'pending' : undefined}>
      <td className="num">{line.id}</td>
      <td className="num">
        <button className="ghost time" onClick={() => onSeek(line.start)} title="Play from here">
          <span className="swatch" style={{ background: speakerColor(line.speaker) }} />
          {line.speaker} {formatReadout(line.start, null)}
        </button>
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
          aria-label={`Line ${line.id} text`}
          data-testid="line-text"
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            // A line is one paragraph: Enter saves, it never adds a line break.
            if (e.key === 'Enter') {
              e.preventDefault();
              if (dirty) void save({ text: draft });
            } else if (e.key === 'Escape') {
              setDraft(line.text);
              (e.target as HTMLTextAreaElement).blur();
            }
          }}
        />
        {dirty && <div className="hint">Enter saves · Escape puts back</div>}
      </td>
      <td>
        <select
          value={line.voice ?? ''}
          disabled={disabled || saving}
          aria-label={`Line ${line.id} voice`}
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
      <td className="ab">
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
      </td>
    </tr>
  );
}

/** "festival-hts/slt" → "slt": the speaker's voice in the default choice, kept short. */
function shortVoice(ref: string | null | undefined): string {
  if (!ref) return 'none installed';
  return ref.slice(ref.indexOf('/') + 1);
}
