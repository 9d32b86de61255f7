import {
  SettingsChannel,
  type SettingsArgs,
  type SettingsChannelName,
  type SettingsResult,
  type TakelineSettingsApi,
} from '../shared/settings-ipc';

export type SettingsInvoke = <C extends SettingsChannelName>(
  channel: C,
  ...args: SettingsArgs<C>
) => Promise<SettingsResult<C>>;

/** Builds `window.takelineSettings`: each method forwards one fixed channel of the dialog's contract. */
export function createSettingsApi(invoke: SettingsInvoke): TakelineSettingsApi {
  return {
    current: () => invoke(SettingsChannel.current),
    check: (form) => invoke(SettingsChannel.check, form),
    save: (form) => invoke(SettingsChannel.save, form),
    close: () => invoke(SettingsChannel.close),
  };
}
