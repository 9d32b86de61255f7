import { useState, type FormEvent } from 'react';
import { ApiError, messageOf } from '../api/errors';
import type { Media, MediaInput } from '../api/types';
import { useApp } from '../app-context';
import { FRAME_RATES, supportsDropFrame, type FrameRate } from '../lib/timecode';
import { Modal } from './Modal';

/** Set the recording's timebase. Validation is the service's: its 422 messages appear beside the fields. */
export function TimebaseDialog(props: {
  sessionId: string;
  media: Media | null;
  onSaved: (media: Media) => void;
  onClose: () => void;
}) {
  const { api, store } = useApp();
  const [frameRate, setFrameRate] = useState<FrameRate>(props.media?.frame_rate ?? '25');
  const [dropFrame, setDropFrame] = useState(props.media?.drop_frame ?? false);
  const [startTimecode, setStartTimecode] = useState(props.media?.start_timecode ?? '');
  const [tape, setTape] = useState(props.media?.tape ?? '');
  const [busy, setBusy] = useState(false);
  const [fields, setFields] = useState<Record<string, string[]>>({});
  const [general, setGeneral] = useState<string | null>(null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setFields({});
    setGeneral(null);
    const input: MediaInput = {
      frame_rate: frameRate,
      drop_frame: dropFrame,
      start_timecode: startTimecode.trim() === '' ? null : startTimecode.trim(),
      tape,
    };
    try {
      const media = await api.setMedia(props.sessionId, input);
      store.getState().notify('Timebase saved');
      props.onSaved(media);
    } catch (error) {
      if (error instanceof ApiError && Object.keys(error.fields).length) {
        setFields(error.fields);
        if (error.fields._) setGeneral(error.fields._.join('; '));
      } else setGeneral(messageOf(error));
    } finally {
      setBusy(false);
    }
  }

  const errorsFor = (name: string) =>
    fields[name]?.map((m) => (
      <div className="field-error" key={m} data-testid={`error-${name}`}>
        {m}
      </div>
    ));

  return (
    <Modal title="Timebase" onClose={props.onClose} testId="timebase-dialog">
      <form onSubmit={submit}>
        <div className="fields">
          <div className="field">
            <label htmlFor="tb-rate">Frame rate</label>
            <select
              id="tb-rate"
              value={frameRate}
              onChange={(e) => setFrameRate(e.target.value as FrameRate)}
            >
              {FRAME_RATES.map((r) => (
                <option key={r} value={r}>
                  {r} fps
                </option>
              ))}
            </select>
            {errorsFor('frame_rate')}
          </div>
          <div className="field">
            <label htmlFor="tb-drop">Counting</label>
            <label
              style={{ display: 'flex', gap: 6, alignItems: 'center', color: 'var(--text)', fontSize: 14 }}
            >
              <input
                id="tb-drop"
                type="checkbox"
                checked={dropFrame}
                onChange={(e) => setDropFrame(e.target.checked)}
              />
              Drop frame
            </label>
            {!supportsDropFrame(frameRate) && dropFrame && (
              <div className="hint">Drop frame exists only at 29.97 and 59.94.</div>
            )}
            {errorsFor('drop_frame')}
          </div>
          <div className="field">
            <label htmlFor="tb-start">Start timecode</label>
            <input
              id="tb-start"
              type="text"
              className="num"
              value={startTimecode}
              placeholder={dropFrame ? '01:00:00;00' : '01:00:00:00'}
              onChange={(e) => setStartTimecode(e.target.value)}
            />
            <div className="hint">Empty: counts from 00:00:00{dropFrame ? ';' : ':'}00</div>
            {errorsFor('start_timecode')}
          </div>
          <div className="field">
            <label htmlFor="tb-tape">Tape / reel</label>
            <input id="tb-tape" type="text" value={tape} onChange={(e) => setTape(e.target.value)} />
            {errorsFor('tape')}
          </div>
        </div>
        {general && (
          <div className="form-error" role="alert" data-testid="timebase-error">
            {general}
          </div>
        )}
        <div className="actions">
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
          <button className="primary" type="submit" disabled={busy}>
            {busy ? 'Saving…' : 'Save timebase'}
          </button>
        </div>
      </form>
    </Modal>
  );
}
