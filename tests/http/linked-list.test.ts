import { LinkedList, type Linked } from '../../src/http/linked-list';

class Node implements Linked<Node> {
  prev: Node | undefined = undefined;
  next: Node | undefined = undefined;
  listed = false;
  constructor(readonly name: string) {}
}

function names(list: LinkedList<Node>): string[] {
  const out: string[] = [];
  for (let node = list.first; node !== undefined; node = node.next) out.push(node.name);
  return out;
}

describe('LinkedList', () => {
  it('puts nodes first, last and after a given node, and walks both ways', () => {
    const list = new LinkedList<Node>();
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => new Node(name)) as [Node, Node, Node, Node];
    list.append(b);
    list.insertAfter(a, undefined);
    list.append(d);
    list.insertAfter(c, b);
    expect(names(list)).toEqual(['a', 'b', 'c', 'd']);
    expect([list.first, list.last, list.size]).toEqual([a, d, 4]);
    expect([d.prev, c.prev, b.prev, a.prev]).toEqual([c, b, a, undefined]);
  });

  it('takes nodes out of its head, middle and tail, unlinking them both ways, and ignores an unlisted one', () => {
    const list = new LinkedList<Node>();
    const nodes = ['a', 'b', 'c', 'd', 'e'].map((name) => new Node(name));
    for (const node of nodes) list.append(node);
    for (const gone of [nodes[0]!, nodes[2]!, nodes[4]!]) {
      expect(list.remove(gone)).toBe(true);
      expect([gone.prev, gone.next, gone.listed]).toEqual([undefined, undefined, false]);
    }
    expect(list.remove(nodes[2]!)).toBe(false);
    expect(names(list)).toEqual(['b', 'd']);
    expect([list.first, list.last, list.size, nodes[3]!.prev]).toEqual([nodes[1], nodes[3], 2, nodes[1]]);
    list.remove(nodes[1]!);
    list.remove(nodes[3]!);
    expect([list.first, list.last, list.size]).toEqual([undefined, undefined, 0]);
  });

  it('shifts its first node out, unlinked, until it is empty', () => {
    const list = new LinkedList<Node>();
    const [a, b] = [new Node('a'), new Node('b')];
    list.append(a);
    list.append(b);
    expect(list.shift()).toBe(a);
    expect([a.prev, a.next, a.listed]).toEqual([undefined, undefined, false]);
    expect([list.first, list.last, list.size, b.prev]).toEqual([b, b, 1, undefined]);
    expect(list.shift()).toBe(b);
    expect(list.shift()).toBeUndefined();
    expect([list.first, list.last, list.size]).toEqual([undefined, undefined, 0]);
  });
});
