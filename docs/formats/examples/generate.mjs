// Writes orders.avro, the body of the Avro page's "Try it" example: an object container file (null codec) written
// by avsc, the Avro library for JavaScript. Run with `node docs/formats/examples/generate.mjs`.

import avro from 'avsc';

const schema = {
  type: 'record',
  name: 'Order',
  namespace: 'shop',
  fields: [
    { name: 'id', type: 'long' },
    { name: 'item', type: 'string' },
    { name: 'quantity', type: 'int' },
  ],
};
const encoder = avro.createFileEncoder(new URL('orders.avro', import.meta.url).pathname, schema, {
  codec: 'null',
  syncMarker: Buffer.alloc(16, 7),
});
encoder.write({ id: 1, item: 'tea', quantity: 2 });
encoder.write({ id: 2, item: 'cake', quantity: 1 });
encoder.end();
