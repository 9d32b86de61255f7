import { describe, expect, it } from 'vitest';
import { caseWord, writtenForms } from './casing';

describe('caseWord', () => {
  it('capitalises sentence starts and the pronoun I with its contractions', () => {
    expect(caseWord('the', true)).toBe('The');
    expect(caseWord('the', false)).toBe('the');
    expect(['i', "i'm", "i'll", "i've", "i'd"].map((w) => caseWord(w, false))).toEqual(['I', "I'm", "I'll", "I've", "I'd"]);
    expect(caseWord('it', false)).toBe('it');
  });

  it('spells words as the prompt wrote them', () => {
    const forms = writtenForms(['Meeting with Siobhan McAllister about Takeline’s iOS build, and the API.']);
    expect(forms.get('mcallister')).toBe('McAllister');
    expect(forms.get("takeline's")).toBe("Takeline's");
    expect(forms.get('ios')).toBe('iOS');
    expect(forms.has('meeting')).toBe(false); // capital only because it starts the sentence
    expect(forms.has('about')).toBe(false);
    expect(caseWord('mcallister', false, forms)).toBe('McAllister');
    expect(caseWord('ios', true, forms)).toBe('IOS');
    expect(caseWord('api', false, forms)).toBe('API');
  });

  it('takes every capital of a vocabulary term, which is spelled as it should be written', () => {
    const forms = writtenForms(['Pannartz printed there.'], ['Sweynheim', 'Pannartz', 'de Vries']);
    expect(forms.get('sweynheim')).toBe('Sweynheim');
    expect(forms.get('pannartz')).toBe('Pannartz');
    expect(forms.get('vries')).toBe('Vries');
    expect(forms.has('de')).toBe(false);
  });
});
