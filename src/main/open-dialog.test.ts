import { describe, expect, it } from 'vitest';
import { toChosenPaths, toOpenDialogOptions } from './open-dialog';

describe('toOpenDialogOptions', () => {
  it('opens single files by default', () => {
    expect(toOpenDialogOptions({})).toEqual({ properties: ['openFile'] });
  });

  it('passes through title, filters, default path and multi-selection', () => {
    const filters = [{ name: 'Audio', extensions: ['wav', 'mp3'] }];
    expect(toOpenDialogOptions({ title: 'Add', filters, defaultPath: '/home/u', multiple: true })).toEqual({
      properties: ['openFile', 'multiSelections'],
      title: 'Add',
      filters,
      defaultPath: '/home/u',
    });
  });
});

describe('toChosenPaths', () => {
  it('maps a cancelled or empty dialog to null', () => {
    expect(toChosenPaths({ canceled: true, filePaths: ['/a'] })).toBeNull();
    expect(toChosenPaths({ canceled: false, filePaths: [] })).toBeNull();
    expect(toChosenPaths({ canceled: false, filePaths: ['/a.wav', '/b.wav'] })).toEqual(['/a.wav', '/b.wav']);
  });
});
