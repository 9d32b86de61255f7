import { describe, expect, it } from 'vitest';
import { processingLabel, processingWaits } from './processing';

describe('processingLabel', () => {
  it('names what a running recording waits for, and otherwise says it is transcribing', () => {
    expect(processingLabel({ status: 'running', stage: 'waiting for a worker' })).toBe('Waiting for a worker');
    expect(processingLabel({ status: 'running', stage: 'waiting for storage' })).toBe('Waiting for storage');
    expect(processingLabel({ status: 'running', stage: 'starting' })).toBe('Transcribing');
    expect(processingLabel({ status: 'running', stage: null })).toBe('Transcribing');
    expect(processingLabel({ status: 'queued', stage: null })).toBe('Queued');
  });

  it('shows a waiting recording without moving progress', () => {
    expect(processingWaits({ status: 'running', stage: 'waiting for a worker' })).toBe(true);
    expect(processingWaits({ status: 'queued', stage: null })).toBe(true);
    expect(processingWaits({ status: 'running', stage: 'recognizing' })).toBe(false);
  });
});
