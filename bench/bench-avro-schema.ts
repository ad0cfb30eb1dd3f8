// The Avro record schema both `bench:parsers` and `bench/list-map-heap.ts` decode: 10 mixed fields (a long past
// 2^32, a nested record, an array, a union, a map), so that their figures are of the same records.
import type avro from 'avsc';

export const BENCH_AVRO_SCHEMA: avro.Schema = {
  type: 'record',
  name: 'Order',
  namespace: 'bench',
  fields: [
    { name: 'id', type: 'long' },
    { name: 'name', type: 'string' },
    { name: 'email', type: 'string' },
    { name: 'active', type: 'boolean' },
    { name: 'score', type: 'double' },
    { name: 'count', type: 'int' },
    { name: 'tags', type: { type: 'array', items: 'string' } },
    {
      name: 'address',
      type: {
        type: 'record',
        name: 'Address',
        fields: [
          { name: 'city', type: 'string' },
          { name: 'zip', type: 'string' },
          { name: 'line', type: 'string' },
        ],
      },
    },
    { name: 'note', type: ['null', 'string'], default: null },
    { name: 'counts', type: { type: 'map', values: 'int' } },
  ],
};
