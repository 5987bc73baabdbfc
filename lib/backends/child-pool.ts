import { ChildChannel, type ChildChannelOptions } from "./child-channel";

/**
 * A few helper processes (ChildChannel) that take work one task each, in order of arrival: the SQL
 * checker's and the document reader's pools. A helper is started on first use and kept between tasks
 * while it lives; one that died (a deadline, its memory watch, a crash) is replaced by the next task.
 * Several helpers, so one runaway task held up to its deadline does not stop every other one meanwhile.
 */
export interface ChildPoolOptions {
  /** How many helpers run at once. */
  size: number;
  /** How each helper is started (read at each start). */
  helper: () => ChildChannelOptions;
  /** The error a task gets when its helper could not start (the pool's own words for people). */
  startFailure: (error: unknown) => Error;
}

/** What a task may do with its helper besides calling it. */
export interface PooledHelper {
  channel: ChildChannel;
  /** Stops this helper now; the pool starts a fresh one for the next task (a helper grown large, or left busy by a failure). */
  retire(): void;
}

interface Slot {
  channel: ChildChannel | null;
  busy: boolean;
}

interface Task {
  work: (helper: PooledHelper) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export class ChildPool {
  private readonly slots: Slot[];
  private readonly queue: Task[] = [];

  constructor(private readonly options: ChildPoolOptions) {
    this.slots = Array.from({ length: options.size }, () => ({ channel: null, busy: false }));
  }

  /** Runs `work` on the next free helper; its result (or error) is the task's. */
  use<T>(work: (helper: PooledHelper) => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.dispatch();
    });
  }

  /** Stops the helpers (tests, shutdown); a later task starts new ones. */
  close(): void {
    for (const slot of this.slots) {
      slot.channel?.kill();
      slot.channel = null;
    }
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (slot.busy || this.queue.length === 0) continue;
      const task = this.queue.shift()!;
      slot.busy = true;
      void this.run(slot, task).finally(() => {
        slot.busy = false;
        this.dispatch();
      });
    }
  }

  private async run(slot: Slot, task: Task): Promise<void> {
    let channel: ChildChannel;
    try {
      channel = slot.channel?.alive ? slot.channel : await ChildChannel.start(this.options.helper());
    } catch (e) {
      task.reject(this.options.startFailure(e));
      return;
    }
    slot.channel = channel;
    const retire = () => {
      channel.kill();
      if (slot.channel === channel) slot.channel = null;
    };
    try {
      task.resolve(await task.work({ channel, retire }));
    } catch (e) {
      task.reject(e);
    }
  }
}
