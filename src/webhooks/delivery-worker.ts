/**
 * The webhook sending thread (a worker thread of the service, started by DeliveryThread): it
 * makes the attempts the dispatcher hands it, signed with standardwebhooks, on an event loop of
 * its own, so that the API's load does not slow deliveries and deliveries do not slow the API.
 * It touches no database: the dispatcher claims and records, in the main thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Webhook } from 'standardwebhooks';
import { DeliverySlots, FromSender, SenderSettings, ToSender } from './delivery-slots';
import { SendOutcome, WebhookSender } from './webhook-sender';

/** Signers kept at most (one or two per endpoint). */
const SIGNER_CACHE_SIZE = 10_000;

function run(): void {
  const port = parentPort;
  if (!port) throw new Error('delivery-worker runs as a worker thread');
  const settings = workerData as SenderSettings;
  const abort = new AbortController();
  const sender = new WebhookSender(settings);
  const signers = new Map<string, Webhook>();
  const signer = (secret: string): Webhook => {
    let s = signers.get(secret);
    if (!s) {
      if (signers.size >= SIGNER_CACHE_SIZE) signers.clear();
      signers.set(secret, (s = new Webhook(secret)));
    }
    return s;
  };

  // Reports go out once per turn of this thread's event loop, together.
  let ended: { deliveryId: string; outcome: SendOutcome; at: number }[] = [];
  let dropped: string[] = [];
  let withdrawn: string[] = [];
  let flushing = false;
  const flush = () => {
    flushing = false;
    if (ended.length === 0 && dropped.length === 0 && withdrawn.length === 0) return;
    const message: FromSender = { type: 'reports', ended, dropped, withdrawn };
    ended = [];
    dropped = [];
    withdrawn = [];
    port.postMessage(message);
  };
  const later = () => {
    if (flushing) return;
    flushing = true;
    setImmediate(flush);
  };

  const slots = new DeliverySlots(
    settings,
    (job) =>
      sender.send({
        url: job.url,
        id: job.eventId,
        body: job.body,
        signers: job.secrets.map(signer),
        signal: abort.signal,
      }),
    {
      ended: (job, outcome, at) => {
        ended.push({ deliveryId: job.deliveryId, outcome, at });
        later();
      },
      dropped: (job) => {
        dropped.push(job.deliveryId);
        later();
      },
      withdrawn: (job) => {
        withdrawn.push(job.deliveryId);
        later();
      },
    },
  );

  port.on('message', (message: ToSender) => {
    if (message.type === 'submit') {
      slots.submit(message.jobs);
      return;
    }
    if (message.type === 'withdraw') {
      slots.withdraw(message.deliveryIds);
      return;
    }
    abort.abort();
    void slots.stop().then((left) => {
      sender.close();
      flush();
      const stopped: FromSender = { type: 'stopped', left: left.map((j) => j.deliveryId) };
      port.postMessage(stopped);
    });
  });
}

run();
