import { Worker } from 'node:worker_threads';
import { startWorker } from '../common/worker-file';
import { DeliveryJob, FromSender, SenderSettings, ToSender } from './delivery-slots';
import type { SendOutcome } from './webhook-sender';

/** What the dispatcher hears from the sending thread. */
export interface ThreadReports {
  ended(deliveryId: string, outcome: SendOutcome, at: Date): void;
  /** Not attempted (too little of its lease was left when its turn came). */
  dropped(deliveryId: string): void;
  /** Not attempted: taken back by `withdraw` before its turn (one batch per report). */
  withdrawn(deliveryIds: string[]): void;
  /** The thread died: whatever it had was neither reported nor handed back. */
  lost(err: Error): void;
}

/**
 * The main thread's side of the webhook sending thread (delivery-worker.ts): started at the first
 * job, so an instance that never delivers never starts it; stopped with the dispatcher.
 */
export class DeliveryThread {
  private worker?: Worker;
  private stopping?: (left: string[]) => void;

  constructor(
    private readonly settings: SenderSettings,
    private readonly reports: ThreadReports,
  ) {}

  submit(jobs: DeliveryJob[]): void {
    if (jobs.length === 0) return;
    const message: ToSender = { type: 'submit', jobs };
    (this.worker ??= this.spawn()).postMessage(message);
  }

  /** Takes back those of these deliveries not started yet: reported as withdrawn. */
  withdraw(deliveryIds: string[]): void {
    if (deliveryIds.length === 0 || !this.worker) return;
    const message: ToSender = { type: 'withdraw', deliveryIds };
    this.worker.postMessage(message);
  }

  /**
   * Aborts the attempts in flight (each is reported as ended, `aborted`) and returns the ids of
   * the jobs not started; the thread then exits.
   */
  async stop(): Promise<string[]> {
    const worker = this.worker;
    if (!worker) return [];
    const left = await new Promise<string[]>((resolve) => {
      this.stopping = resolve;
      const message: ToSender = { type: 'stop' };
      worker.postMessage(message);
    });
    this.worker = undefined;
    await worker.terminate();
    return left;
  }

  private spawn(): Worker {
    const worker = startWorker(__dirname, 'delivery-worker', { workerData: this.settings });
    // The dispatcher stops it; it never holds the process open by itself.
    worker.unref();
    worker.on('message', (message: FromSender) => {
      if (message.type === 'stopped') {
        this.stopping?.(message.left);
        return;
      }
      for (const e of message.ended) this.reports.ended(e.deliveryId, e.outcome, new Date(e.at));
      for (const id of message.dropped) this.reports.dropped(id);
      if (message.withdrawn.length > 0) this.reports.withdrawn(message.withdrawn);
    });
    const gone = (err: Error) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.stopping?.([]);
      this.reports.lost(err);
    };
    worker.on('error', gone);
    worker.on('exit', (code) => gone(new Error(`the webhook sending thread exited (${code})`)));
    return worker;
  }
}
