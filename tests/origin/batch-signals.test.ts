import { BatchSignals } from '../../src/origin/batch-signals';

describe('BatchSignals', () => {
  it('reuses a controller whose batch ended quietly', () => {
    const signals = new BatchSignals(4);
    const first = signals.take();
    signals.give(first);
    expect(signals.take()).toBe(first);
  });

  it('never reuses a controller that aborted', () => {
    const signals = new BatchSignals(4);
    const first = signals.take();
    first.abort(new Error('timeout'));
    signals.give(first);
    const next = signals.take();
    expect(next).not.toBe(first);
    expect(next.signal.aborted).toBe(false);
  });

  it('never reuses a signal a stage still listens to', () => {
    const signals = new BatchSignals(4);
    const listened = signals.take();
    listened.signal.addEventListener('abort', () => undefined);
    signals.give(listened);
    const handled = signals.take();
    handled.signal.onabort = () => undefined;
    signals.give(handled);
    expect([signals.take(), signals.take()]).not.toContain(listened);
  });

  it('keeps no more idle controllers than its capacity', () => {
    const signals = new BatchSignals(1);
    const [a, b] = [signals.take(), signals.take()];
    signals.give(a);
    signals.give(b);
    expect(signals.take()).toBe(a);
    expect(signals.take()).not.toBe(b);
  });
});
