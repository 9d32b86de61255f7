import { useRef, useState, type DragEvent } from 'react';

/** Drop recordings here or pick them; hands the files to `onFiles`. */
export function UploadZone({ onFiles, disabled }: { onFiles: (files: File[]) => void; disabled?: boolean }) {
  const [over, setOver] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const accept = (e: DragEvent) => {
    if (disabled || !e.dataTransfer.types.includes('Files')) return;
    e.preventDefault();
    setOver(true);
  };
  return (
    <div
      className={`dropzone${over ? ' over' : ''}`}
      data-testid="dropzone"
      onDragEnter={accept}
      onDragOver={accept}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        if (!disabled && e.dataTransfer.files.length) onFiles([...e.dataTransfer.files]);
      }}
    >
      <div>Drop audio or video recordings here</div>
      <div style={{ margin: '8px 0' }}>or</div>
      <button type="button" onClick={() => input.current?.click()} disabled={disabled}>
        Choose files…
      </button>
      <input
        ref={input}
        type="file"
        data-testid="file-input"
        accept="audio/*,video/*,.flac,.wav,.mp3,.m4a,.aac,.ogg,.opus,.mp4,.mov,.mkv,.webm"
        multiple
        hidden
        onChange={(e) => {
          const files = [...(e.target.files ?? [])];
          e.target.value = '';
          if (files.length) onFiles(files);
        }}
      />
    </div>
  );
}
