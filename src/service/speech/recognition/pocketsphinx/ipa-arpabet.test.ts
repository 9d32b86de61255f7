import { describe, expect, it } from 'vitest';
import { ipaToArpabet } from './ipa-arpabet';

describe('ipaToArpabet', () => {
  it('maps espeak-ng IPA of English words to the dictionary phone set', () => {
    // espeak-ng 1.51 output for each word, and the cmudict entry it should come close to.
    expect(ipaToArpabet('tʃˈɪdi')).toEqual(['CH', 'IH', 'D', 'IY']);
    expect(ipaToArpabet('tˈeɪklaɪn')).toEqual(['T', 'EY', 'K', 'L', 'AY', 'N']);
    expect(ipaToArpabet('θˈɪsəlwˌʊd')).toEqual(['TH', 'IH', 'S', 'AH', 'L', 'W', 'UH', 'D']);
    expect(ipaToArpabet('dˈʌnmoːɹ')).toEqual(['D', 'AH', 'N', 'M', 'AO', 'R']);
    expect(ipaToArpabet('ˈɔɪɪlˌæɹən')).toEqual(['OY', 'IH', 'L', 'AE', 'R', 'AH', 'N']);
    expect(ipaToArpabet('dʒˈʌdʒ')).toEqual(['JH', 'AH', 'JH']);
    expect(ipaToArpabet('ɡˈʊdmɔːɹnɪŋ')).toEqual(['G', 'UH', 'D', 'M', 'AO', 'R', 'N', 'IH', 'NG']);
    expect(ipaToArpabet('mˈɛʒɚ')).toEqual(['M', 'EH', 'ZH', 'ER']);
  });

  it('refuses a symbol it does not know rather than guessing', () => {
    expect(ipaToArpabet('ʀy')).toBeNull();
    expect(ipaToArpabet('ˈ')).toBeNull();
  });
});
