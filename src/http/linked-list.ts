/** A node's links in one {@link LinkedList}. The list owns them; a node is in at most one list at a time. */
export interface Linked<N> {
  prev: N | undefined;
  next: N | undefined;
  /** Whether the node is in the list now. */
  listed: boolean;
}

/**
 * A doubly linked list whose links live in its nodes: adding or removing a node touches its two neighbours, with no
 * entry object and no hash table. The request path keeps its long-lived collections of per-request things this way
 * (body reads, batch and stream deadlines) rather than in a `Map` or `Set`: a long-lived table ends up in the old
 * generation, where V8 makes each rehashed table too, and a table it replaced still points at the requests that
 * were in it, so they outlive the young generation's collections (decision 0130). A node taken out is unlinked both
 * ways, so nothing the list dropped points at anything.
 */
export class LinkedList<N extends Linked<N>> {
  #first: N | undefined;
  #last: N | undefined;
  #size = 0;

  get first(): N | undefined {
    return this.#first;
  }

  get last(): N | undefined {
    return this.#last;
  }

  get size(): number {
    return this.#size;
  }

  /** Puts `node` (not listed) after `after`, a node of this list, or first when `after` is undefined. */
  insertAfter(node: N, after: N | undefined): void {
    const before = after === undefined ? this.#first : after.next;
    node.prev = after;
    node.next = before;
    if (after === undefined) this.#first = node;
    else after.next = node;
    if (before === undefined) this.#last = node;
    else before.prev = node;
    node.listed = true;
    this.#size++;
  }

  /** Puts `node` (not listed) last. */
  append(node: N): void {
    this.insertAfter(node, this.#last);
  }

  /** Takes the first node out of the list and returns it; `undefined` when the list is empty. */
  shift(): N | undefined {
    const first = this.#first;
    if (first !== undefined) this.remove(first);
    return first;
  }

  /** Takes `node` out of the list; false (and nothing done) when it is not listed. */
  remove(node: N): boolean {
    if (!node.listed) return false;
    const { prev, next } = node;
    if (prev === undefined) this.#first = next;
    else prev.next = next;
    if (next === undefined) this.#last = prev;
    else next.prev = prev;
    node.prev = undefined;
    node.next = undefined;
    node.listed = false;
    this.#size--;
    return true;
  }
}
