import { defineMachine } from '#lib/domain/state-machine.ts';

/**
 * The machines of reference-behaviour.md §3. A qcable moves by any of its seven events towards a target
 * state (contract §2, `state_changes`); a request's client-facing moves exclude the events the reference
 * fires only from its own workflows (marked manual).
 */
export const QCABLE_STATES = ['created', 'pending', 'failed', 'passed', 'available', 'destroyed', 'qc_in_progress', 'exhausted'] as const;
export type QcableState = (typeof QCABLE_STATES)[number];

export const qcableMachine = defineMachine({
  subject: 'qcable',
  states: QCABLE_STATES,
  initial: 'created',
  transitions: [
    { event: 'do_stamp', from: ['created'], to: 'pending' },
    { event: 'destroy_labware', from: ['pending', 'available'], to: 'destroyed' },
    { event: 'qc', from: ['pending'], to: 'qc_in_progress' },
    { event: 'release', from: ['pending'], to: 'available' },
    { event: 'pass', from: ['qc_in_progress'], to: 'passed' },
    { event: 'fail', from: ['qc_in_progress', 'pending'], to: 'failed' },
    { event: 'use', from: ['available'], to: 'exhausted' },
  ],
});

export const REQUEST_STATES = ['pending', 'started', 'passed', 'failed', 'cancelled', 'blocked', 'hold'] as const;
export type RequestState = (typeof REQUEST_STATES)[number];

export const requestMachine = defineMachine({
  subject: 'request',
  states: REQUEST_STATES,
  initial: 'pending',
  transitions: [
    { event: 'hold', from: ['pending'], to: 'hold' },
    { event: 'start', from: ['pending', 'hold'], to: 'started' },
    { event: 'pass', from: ['started'], to: 'passed' },
    { event: 'fail', from: ['started'], to: 'failed' },
    { event: 'retrospective_pass', from: ['failed'], to: 'passed' },
    { event: 'retrospective_fail', from: ['passed'], to: 'failed' },
    { event: 'block', from: ['pending'], to: 'blocked' },
    { event: 'unblock', from: ['blocked'], to: 'pending' },
    { event: 'detach', from: ['cancelled'], to: 'pending' },
    { event: 'reset', from: ['hold'], to: 'pending' },
    { event: 'cancel', from: ['started', 'hold'], to: 'cancelled' },
    { event: 'return', from: ['failed', 'passed'], to: 'pending' },
    { event: 'cancel_completed', from: ['failed', 'passed'], to: 'cancelled' },
    { event: 'cancel_before_started', from: ['pending', 'hold'], to: 'cancelled' },
    { event: 'submission_cancelled', from: ['pending', 'cancelled'], to: 'cancelled', manual: true },
    { event: 'fail_from_upstream', from: ['pending'], to: 'cancelled', manual: true },
    { event: 'fail_from_upstream', from: ['started', 'passed'], to: 'failed', manual: true },
    { event: 'evented_fail', from: ['started', 'passed'], to: 'failed', manual: true },
    { event: 'evented_pass', from: ['started', 'failed'], to: 'passed', manual: true },
  ],
});

/**
 * Requests of a request type for multiplexing (the reference's Request::Multiplexing, app/models/request/multiplexing.rb,
 * which redefines the machine): the work of pooling, which the MX tube's state decides, so it passes or fails
 * from `pending` too. State changers move such requests by it (lib/domain/state-changers.ts).
 */
export const multiplexingRequestMachine = defineMachine({
  subject: 'request',
  states: REQUEST_STATES,
  initial: 'pending',
  transitions: [
    { event: 'start', from: ['pending'], to: 'started' },
    { event: 'pass', from: ['pending', 'started'], to: 'passed' },
    { event: 'fail', from: ['pending', 'started'], to: 'failed' },
    { event: 'cancel', from: ['started', 'passed'], to: 'cancelled' },
    { event: 'cancel_before_started', from: ['pending', 'hold'], to: 'cancelled' },
    { event: 'submission_cancelled', from: ['pending', 'cancelled'], to: 'cancelled', manual: true },
    { event: 'fail_from_upstream', from: ['pending'], to: 'cancelled', manual: true },
    { event: 'fail_from_upstream', from: ['started', 'passed'], to: 'failed', manual: true },
  ],
});

/** The transfer request machine (reference-behaviour.md §7.1); a receptacle's state derives from it (§7.2). */
export const TRANSFER_REQUEST_STATES = [
  'pending',
  'started',
  'processed',
  'processed_1',
  'processed_2',
  'processed_3',
  'processed_4',
  'passed',
  'failed',
  'qc_complete',
  'cancelled',
] as const;
export type TransferRequestState = (typeof TRANSFER_REQUEST_STATES)[number];

export const transferRequestMachine = defineMachine({
  subject: 'transfer request',
  states: TRANSFER_REQUEST_STATES,
  initial: 'pending',
  transitions: [
    { event: 'start', from: ['pending'], to: 'started' },
    { event: 'progress', from: ['started'], to: 'processed' },
    { event: 'process_1', from: ['pending'], to: 'processed_1' },
    { event: 'process_2', from: ['processed_1'], to: 'processed_2' },
    { event: 'process_3', from: ['processed_2'], to: 'processed_3' },
    { event: 'process_4', from: ['processed_3'], to: 'processed_4' },
    { event: 'pass', from: ['pending', 'started', 'failed', 'processed', 'processed_2', 'processed_3', 'processed_4'], to: 'passed' },
    { event: 'fail', from: ['pending', 'started', 'processed_1', 'processed_2', 'processed_3', 'processed_4', 'passed'], to: 'failed' },
    { event: 'cancel', from: ['started', 'processed_1', 'processed_2', 'processed_3', 'processed_4', 'passed', 'qc_complete'], to: 'cancelled' },
    { event: 'cancel_before_started', from: ['pending'], to: 'cancelled' },
    { event: 'qc', from: ['passed'], to: 'qc_complete' },
  ],
});
