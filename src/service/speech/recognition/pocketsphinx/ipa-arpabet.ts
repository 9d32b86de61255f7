/**
 * espeak-ng's IPA (`espeak-ng -q --ipa -v en-us`) mapped to the CMU/PocketSphinx phone set (ARPAbet
 * without stress: AA AE AH AO AW AY B CH D DH EH ER EY F G HH IH IY JH K L M N NG OW OY P R S SH T TH UH UW
 * V W Y Z ZH), so a word the dictionary lacks can be given a pronunciation the acoustic model knows.
 * Longest match first (diphthongs and affricates before their parts); stress, length and syllable marks
 * carry nothing the model uses and are dropped. Sounds English lacks map to the nearest phone.
 */
const TABLE: ReadonlyArray<[string, string[]]> = [
  ['aɪə', ['AY', 'ER']],
  ['aɪ', ['AY']],
  ['aʊ', ['AW']],
  ['eɪ', ['EY']],
  ['oʊ', ['OW']],
  ['əʊ', ['OW']],
  ['ɔɪ', ['OY']],
  ['tʃ', ['CH']],
  ['dʒ', ['JH']],
  ['ɑː', ['AA']],
  ['ɑ', ['AA']],
  ['ɒ', ['AA']],
  ['æ', ['AE']],
  ['a', ['AE']],
  ['ʌ', ['AH']],
  ['ə', ['AH']],
  ['ɐ', ['AH']],
  ['ɔː', ['AO']],
  ['ɔ', ['AO']],
  ['oː', ['AO']],
  ['o', ['OW']],
  ['ɛ', ['EH']],
  ['e', ['EH']],
  ['ɜː', ['ER']],
  ['ɜ', ['ER']],
  ['ɚ', ['ER']],
  ['ɝ', ['ER']],
  ['ɪ', ['IH']],
  ['ᵻ', ['IH']],
  ['iː', ['IY']],
  ['i', ['IY']],
  ['ʊ', ['UH']],
  ['uː', ['UW']],
  ['u', ['UW']],
  ['b', ['B']],
  ['d', ['D']],
  ['ð', ['DH']],
  ['f', ['F']],
  ['ɡ', ['G']],
  ['g', ['G']],
  ['h', ['HH']],
  ['j', ['Y']],
  ['k', ['K']],
  ['x', ['K']],
  ['l', ['L']],
  ['ɫ', ['L']],
  ['m', ['M']],
  ['n', ['N']],
  ['ŋ', ['NG']],
  ['p', ['P']],
  ['ɹ', ['R']],
  ['r', ['R']],
  ['s', ['S']],
  ['ʃ', ['SH']],
  ['t', ['T']],
  // A flap is /t/ or /d/ between vowels ("butter"); the dictionary writes /t/ more often.
  ['ɾ', ['T']],
  ['ʔ', ['T']],
  ['θ', ['TH']],
  ['v', ['V']],
  ['w', ['W']],
  ['z', ['Z']],
  ['ʒ', ['ZH']],
  ['ç', ['HH']],
];

/** Marks with no phone of their own: stress, length, syllabicity, ties, word and syllable breaks. */
const IGNORED = new Set(['\u02c8', '\u02cc', '\u02d0', '\u02d1', '\u0329', '\u032f', '\u203f', '.', '-', '_', ' ', '\t', '\n', "'", '\u2019']);

/** ARPAbet phones for one word's IPA; null when a symbol is not known (the word is then left out). */
export function ipaToArpabet(ipa: string): string[] | null {
  const phones: string[] = [];
  let i = 0;
  const text = ipa.normalize('NFC');
  outer: while (i < text.length) {
    if (IGNORED.has(text[i]!)) {
      i++;
      continue;
    }
    for (const [symbol, arpabet] of TABLE) {
      if (text.startsWith(symbol, i)) {
        phones.push(...arpabet);
        i += symbol.length;
        continue outer;
      }
    }
    return null;
  }
  return phones.length > 0 ? phones : null;
}
