import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkLetter, decodeBarcode, ean13CheckDigit, encodeBarcode, isValidPrefix, numberToPrefix, prefixToNumber } from '#lib/domain/barcode.ts';

// Expected values below were computed independently of this module, from the
// format description (and DN12345U ↔ 1220012345855 is the reference example).
const KNOWN = [
  { prefix: 'DN', number: 12345, human: 'DN12345U', machine: '1220012345855' },
  { prefix: 'NT', number: 1, human: 'NT1O', machine: '3980000001795' },
  { prefix: 'NT', number: 480218, human: 'NT480218A', machine: '3980480218652' },
  { prefix: 'TR', number: 42, human: 'TR42A', machine: '5580000042651' },
  { prefix: 'TR', number: 9999999, human: 'TR9999999S', machine: '5589999999830' },
  { prefix: 'AA', number: 1, human: 'AA1G', machine: '0280000001713' },
  { prefix: 'ZZ', number: 9999999, human: 'ZZ9999999V', machine: '7289999999868' },
];

describe('prefixes', () => {
  it('maps letters to numbers', () => {
    expect(prefixToNumber('DN')).toBe(122);
    expect(prefixToNumber('NT')).toBe(398);
    expect(prefixToNumber('TR')).toBe(558);
    expect(prefixToNumber('AA')).toBe(28);
    expect(prefixToNumber('ZZ')).toBe(728);
  });

  it('maps numbers back to letters', () => {
    expect(numberToPrefix(122)).toBe('DN');
    expect(numberToPrefix(398)).toBe('NT');
    expect(numberToPrefix(558)).toBe('TR');
  });

  it('round-trips every two-letter prefix, and nothing else decodes', () => {
    const seen = new Set<string>();
    for (let n = -1; n <= 999; n++) {
      const prefix = numberToPrefix(n);
      if (prefix === undefined) continue;
      expect(prefix).toMatch(/^[A-Z]{2}$/);
      expect(prefixToNumber(prefix)).toBe(n);
      seen.add(prefix);
    }
    expect(seen.size).toBe(26 * 26);
  });

  it.each([0, 27, 54, 26, 729, 999, 1.5])('numberToPrefix(%s) is undefined', (n) => {
    expect(numberToPrefix(n)).toBeUndefined();
  });

  it.each(['', 'D', 'DNA', 'dn', 'Dn', 'D1', '@A', '[A', 'ÀA'])('rejects prefix %j', (prefix) => {
    expect(isValidPrefix(prefix)).toBe(false);
    expect(prefixToNumber(prefix)).toBeUndefined();
  });

  it('accepts upper-case two-letter prefixes', () => {
    expect(isValidPrefix('DN')).toBe(true);
    expect(isValidPrefix('ZZ')).toBe(true);
  });
});

describe('check characters', () => {
  it('computes the check letter of the worked example', () => {
    expect(checkLetter('DN', 12345)).toBe('U');
    expect(checkLetter('NT', 1)).toBe('O');
  });

  it('computes standard EAN-13 check digits', () => {
    expect(ean13CheckDigit('122001234585')).toBe(5);
    expect(ean13CheckDigit('400638133393')).toBe(1); // well-known retail EAN 4006381333931
    expect(ean13CheckDigit('000000000000')).toBe(0);
  });

  it.each(['', '12345678901', '1234567890123', '12345678901a'])('ean13CheckDigit rejects %j', (digits) => {
    expect(() => ean13CheckDigit(digits)).toThrow(RangeError);
  });

  it.each([
    ['dn', 1],
    ['DN', 0],
    ['DN', 10_000_000],
    ['DN', 1.5],
  ] as const)('encodeBarcode(%j, %s) throws', (prefix, number) => {
    expect(() => encodeBarcode(prefix, number)).toThrow(RangeError);
    expect(() => checkLetter(prefix, number)).toThrow(RangeError);
  });
});

describe('encode / decode known barcodes', () => {
  it.each(KNOWN)('$human ↔ $machine', ({ prefix, number, human, machine }) => {
    const forms = { human_barcode: human, machine_barcode: machine, ean13_barcode: machine };
    expect(encodeBarcode(prefix, number)).toEqual(forms);
    expect(decodeBarcode(human)).toEqual({ prefix, number, ...forms });
    expect(decodeBarcode(machine)).toEqual({ prefix, number, ...forms });
  });

  it('accepts lower case and surrounding whitespace in the human form', () => {
    expect(decodeBarcode('dn12345u')?.human_barcode).toBe('DN12345U');
    expect(decodeBarcode('Dn12345U')?.machine_barcode).toBe('1220012345855');
    expect(decodeBarcode('  DN12345U\n')?.number).toBe(12345);
    expect(decodeBarcode('\t1220012345855 ')?.prefix).toBe('DN');
  });

  it('rejects a wrong check letter', () => {
    for (const letter of 'ABCDEFGHIJKLMNOPQRSTVWXYZ') {
      expect(decodeBarcode(`DN12345${letter}`)).toBeUndefined();
    }
  });

  it('rejects a wrong EAN-13 check digit', () => {
    for (const digit of '012346789') {
      expect(decodeBarcode(`122001234585${digit}`)).toBeUndefined();
    }
  });

  it('rejects a machine form whose embedded check-letter code is wrong, even with a valid EAN digit', () => {
    // 'V' (86) instead of 'U' (85); EAN digit recomputed so only the letter code is wrong.
    const first12 = '122001234586';
    expect(decodeBarcode(first12 + ean13CheckDigit(first12))).toBeUndefined();
  });

  it('rejects machine forms whose prefix is not two letters', () => {
    // 000 and 027 have a zero "letter"; 729 is past ZZ. EAN digits are valid.
    for (const prefixDigits of ['000', '027', '729', '999']) {
      const first12 = `${prefixDigits}001234585`;
      expect(decodeBarcode(first12 + ean13CheckDigit(first12))).toBeUndefined();
    }
  });

  it('rejects a machine form with number 0', () => {
    const letter = 'A'.charCodeAt(0);
    const first12 = `1220000000${letter}`;
    expect(decodeBarcode(first12 + ean13CheckDigit(first12))).toBeUndefined();
  });

  it.each([
    '',
    '   ',
    'DN',
    'DN0A',
    'DN012345U', // leading zero: not a spelling printers produce
    'DN12345',
    '12345',
    'DN12345UU',
    'D12345U',
    'DNA12345U',
    'DN12345678U', // 8 digits
    'DN 12345U',
    'DN-12345U',
    'ſN12345U', // long s would upper-case to S
    '122001234585', // 12 digits
    '12200123458555', // 14 digits
    '1220012345855X',
    '122001234585５', // full-width digit
    '-122001234585',
  ])('rejects %j', (input) => {
    expect(decodeBarcode(input)).toBeUndefined();
  });
});

describe('properties', () => {
  const prefixes = fc.tuple(fc.integer({ min: 65, max: 90 }), fc.integer({ min: 65, max: 90 })).map(([a, b]) => String.fromCharCode(a, b));
  const numbers = fc.integer({ min: 1, max: 9_999_999 });

  it('decode(encode(...).human_barcode) round-trips', () => {
    fc.assert(
      fc.property(prefixes, numbers, fc.boolean(), (prefix, number, lower) => {
        const encoded = encodeBarcode(prefix, number);
        const input = lower ? encoded.human_barcode.toLowerCase() : encoded.human_barcode;
        expect(decodeBarcode(input)).toEqual({ prefix, number, ...encoded });
      }),
    );
  });

  it('decode(encode(...).machine_barcode) round-trips', () => {
    fc.assert(
      fc.property(prefixes, numbers, (prefix, number) => {
        const encoded = encodeBarcode(prefix, number);
        expect(decodeBarcode(encoded.machine_barcode)).toEqual({ prefix, number, ...encoded });
      }),
    );
  });

  it('forms have the documented shape and a valid EAN-13 check digit', () => {
    fc.assert(
      fc.property(prefixes, numbers, (prefix, number) => {
        const { human_barcode, machine_barcode, ean13_barcode } = encodeBarcode(prefix, number);
        expect(human_barcode).toBe(`${prefix}${number}${human_barcode.at(-1)}`);
        expect(human_barcode.at(-1)).toMatch(/^[A-W]$/);
        expect(ean13_barcode).toMatch(/^\d{13}$/);
        expect(machine_barcode).toBe(ean13_barcode);
        expect(Number(ean13_barcode[12])).toBe(ean13CheckDigit(ean13_barcode.slice(0, 12)));
        expect(ean13_barcode.slice(3, 10)).toBe(String(number).padStart(7, '0'));
        expect(ean13_barcode.slice(10, 12)).toBe(String(human_barcode.charCodeAt(human_barcode.length - 1)));
      }),
    );
  });

  it('a single changed digit in a machine form is always rejected', () => {
    fc.assert(
      fc.property(prefixes, numbers, fc.nat(12), fc.integer({ min: 1, max: 9 }), (prefix, number, at, delta) => {
        const machine = encodeBarcode(prefix, number).machine_barcode;
        const changed = (Number(machine[at]) + delta) % 10;
        const corrupted = machine.slice(0, at) + changed + machine.slice(at + 1);
        expect(decodeBarcode(corrupted)).toBeUndefined();
      }),
    );
  });

  it('decodeBarcode never throws, and anything it accepts re-encodes to itself', () => {
    const inputs = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.stringMatching(/^\d{13}$/), fc.stringMatching(/^[A-Za-z]{2}[0-9]{1,8}[A-Za-z]$/));
    fc.assert(
      fc.property(inputs, (input) => {
        const decoded = decodeBarcode(input);
        if (decoded !== undefined) {
          const forms = encodeBarcode(decoded.prefix, decoded.number);
          expect(decoded).toEqual({ prefix: decoded.prefix, number: decoded.number, ...forms });
          expect([forms.human_barcode, forms.machine_barcode]).toContain(/^\d+$/.test(input.trim()) ? input.trim() : input.trim().toUpperCase());
        }
      }),
    );
  });
});
