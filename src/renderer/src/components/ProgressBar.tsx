/** A thin progress bar; `value` null shows an indeterminate bar (waiting in the queue). */
export function ProgressBar({
  value,
  label,
  testId,
}: {
  value: number | null;
  label: string;
  testId?: string;
}) {
  const pct = value == null ? 0 : Math.round(Math.min(1, Math.max(0, value)) * 100);
  return (
    <div className="progress-row">
      <div
        className={`progress${value == null ? ' indeterminate' : ''}`}
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={value == null ? undefined : pct}
        data-testid={testId}
      >
        <div style={{ width: `${pct}%` }} />
      </div>
      <span className="num">{value == null ? label : `${label} ${pct}%`}</span>
    </div>
  );
}
