import fc from 'fast-check';
import { deferredText } from '../../src/record/deferred-record';
import { TextArena } from '../../src/formats/text-arena';

// Decision 0135: a deferring parser copies each record's source text into shared blocks outside the heap. Every
// text must come back exactly, whatever its length and characters, and a text handed out must never be
// overwritten by a later one.

const decode = (text: string): string => text;

describe('TextArena', () => {
  it('gives back every written text exactly, across blocks and for texts longer than a block', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.string({ unit: 'binary', maxLength: 200 }),
            fc.string({ unit: 'grapheme', maxLength: 40_000 }),
            fc.constant('x'.repeat(300_000)),
          ),
          { maxLength: 60 },
        ),
        (texts) => {
          const arena = new TextArena();
          const kept = texts.map((text) => arena.write(text, decode));
          // Read back only after all were written: a later write must not have touched an earlier text.
          expect(kept.map((d) => deferredText(d))).toEqual(
            texts.map((t) => Buffer.from(t, 'utf8').toString('utf8')),
          );
        },
      ),
      { numRuns: 30 },
    );
  });

  it('copies byte ranges exactly, the source bytes being reusable at once', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 70_000 }), { maxLength: 40 }), (pieces) => {
        const arena = new TextArena();
        const source = Buffer.alloc(80_000);
        const kept = pieces.map((piece) => {
          source.set(piece, 5);
          const d = arena.copy(source, 5, 5 + piece.length, decode);
          source.fill(0xff);
          return d;
        });
        kept.forEach((d, i) =>
          expect(Buffer.from(d.bytes.subarray(d.start, d.end))).toEqual(Buffer.from(pieces[i]!)),
        );
      }),
      { numRuns: 30 },
    );
  });

  it('keeps texts in blocks outside the heap shared by many records, not a buffer each', () => {
    const arena = new TextArena();
    const kept = Array.from({ length: 1000 }, (_, i) => arena.write(`{"id":${i}}`, decode));
    expect(new Set(kept.map((d) => d.bytes)).size).toBe(1);
    expect(kept[0]!.bytes.buffer.byteLength).toBeGreaterThanOrEqual(64 * 1024);
  });
});
