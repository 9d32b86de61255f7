import { describe, expect, it } from 'vitest';
import { actionForKey, isTypingTarget } from './shortcuts';

describe('actionForKey', () => {
  it('maps the transport keys', () => {
    expect(actionForKey({ key: ' ' })).toBe('play-pause');
    expect(actionForKey({ key: 'j' })).toBe('shuttle-reverse');
    expect(actionForKey({ key: 'K' })).toBe('shuttle-stop');
    expect(actionForKey({ key: 'l' })).toBe('shuttle-forward');
    expect(actionForKey({ key: 'Home' })).toBe('go-start');
    expect(actionForKey({ key: 'End' })).toBe('go-end');
  });

  it('steps a frame on arrows and a second with Shift', () => {
    expect(actionForKey({ key: 'ArrowLeft' })).toBe('frame-back');
    expect(actionForKey({ key: 'ArrowRight', shiftKey: true })).toBe('second-forward');
  });

  it('sets in and out points and opens the sheet on ?', () => {
    expect(actionForKey({ key: 'i' })).toBe('mark-in');
    expect(actionForKey({ key: 'o' })).toBe('mark-out');
    expect(actionForKey({ key: '?', shiftKey: true })).toBe('show-shortcuts');
  });

  it('leaves browser and unknown chords alone', () => {
    expect(actionForKey({ key: 'l', ctrlKey: true })).toBeNull();
    expect(actionForKey({ key: 'f', metaKey: true })).toBe('find');
    expect(actionForKey({ key: 'q' })).toBeNull();
    expect(actionForKey({ key: 'j', altKey: true })).toBeNull();
  });
});

describe('in/out and marker keys', () => {
  it('goes to, plays and loops the in→out range', () => {
    expect(actionForKey({ key: 'I', shiftKey: true })).toBe('go-in');
    expect(actionForKey({ key: 'O', shiftKey: true })).toBe('go-out');
    expect(actionForKey({ key: 'p' })).toBe('play-range');
    expect(actionForKey({ key: 'P', shiftKey: true })).toBe('loop-range');
    expect(actionForKey({ key: 'X', shiftKey: true })).toBe('clear-marks');
  });
  it('jumps between markers, and between markers of one kind with Shift', () => {
    expect(actionForKey({ key: ']' })).toBe('next-marker');
    expect(actionForKey({ key: '[' })).toBe('prev-marker');
    expect(actionForKey({ key: '}', shiftKey: true })).toBe('next-marker-kind');
    expect(actionForKey({ key: '{', shiftKey: true })).toBe('prev-marker-kind');
  });
  it('adds a marker of your own on M', () => {
    expect(actionForKey({ key: 'm' })).toBe('add-marker');
    expect(actionForKey({ key: 'm', ctrlKey: true })).toBeNull();
  });
  it('keeps the keys already taken: plain I/O mark, Shift+X clears, Tab walks doubtful words', () => {
    expect(actionForKey({ key: 'i' })).toBe('mark-in');
    expect(actionForKey({ key: 'O' })).toBe('mark-out');
    expect(actionForKey({ key: 'Tab', shiftKey: true })).toBe('prev-doubtful');
  });
});

describe('correction keys', () => {
  it('edits, walks doubtful words, undoes and redoes', () => {
    expect(actionForKey({ key: 'Enter' })).toBe('edit-word');
    expect(actionForKey({ key: 'F2' })).toBe('edit-line');
    expect(actionForKey({ key: 'Tab' })).toBe('next-doubtful');
    expect(actionForKey({ key: 'Tab', shiftKey: true })).toBe('prev-doubtful');
    expect(actionForKey({ key: 'z', ctrlKey: true })).toBe('undo');
    expect(actionForKey({ key: 'Z', metaKey: true, shiftKey: true })).toBe('redo');
    expect(actionForKey({ key: 'y', ctrlKey: true })).toBe('redo');
  });
});

describe('isTypingTarget', () => {
  it('recognises text fields but not buttons or checkboxes', () => {
    expect(isTypingTarget({ tagName: 'INPUT', type: 'text' })).toBe(true);
    expect(isTypingTarget({ tagName: 'INPUT', type: 'search' })).toBe(true);
    expect(isTypingTarget({ tagName: 'TEXTAREA' })).toBe(true);
    expect(isTypingTarget({ tagName: 'DIV', isContentEditable: true })).toBe(true);
    expect(isTypingTarget({ tagName: 'INPUT', type: 'checkbox' })).toBe(false);
    expect(isTypingTarget({ tagName: 'BUTTON' })).toBe(false);
    expect(isTypingTarget(null)).toBe(false);
  });

  it('does not count a field disabled while it saves: Ctrl+Z there is the page\'s undo', () => {
    expect(isTypingTarget({ tagName: 'INPUT', type: 'text', disabled: true })).toBe(false);
    expect(isTypingTarget({ tagName: 'TEXTAREA', disabled: true })).toBe(false);
  });
});
