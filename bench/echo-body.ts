// The request bodies of the echo benches (`npm run bench` over sockets, `--in-memory` without): an array of
// customer-like objects, nested object and array included.

function record(i: number): Record<string, unknown> {
  return {
    id: i,
    name: `customer ${i}`,
    email: `c${i}@example.com`,
    active: i % 2 === 0,
    score: i * 1.5,
    tags: ['a', 'b'],
    address: { city: 'Lyon', zip: '69001' },
  };
}

/** The JSON text of `count` records (`arrayOfObjects`). */
export const echoBodyOf = (count: number): string =>
  JSON.stringify(Array.from({ length: count }, (_, i) => record(i)));
