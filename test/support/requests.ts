import { expect } from 'vitest';
import { call, doc, idOf, type CallResult } from './api.ts';
import { create, rel, rels, type Linkage } from './fixtures.ts';

/** Helpers of the work-request tests: reference ids, submissions with an order, requests, state PATCHes. */

export interface WorkIds {
  study: string;
  libraryCreation: string;
  sequencing: string;
}

/** The ids of the default study and request types the tests use (call after freshStore). */
export async function workIds(): Promise<WorkIds> {
  return {
    study: await idOf('studies', 'name', 'Study A'),
    libraryCreation: await idOf('request_types', 'key', 'library_creation'),
    sequencing: await idOf('request_types', 'key', 'sequencing'),
  };
}

/** A submission with one order of a study, asking for the given request types (none: any). */
export async function createOrder(study: string, requestTypes: string[] = []): Promise<{ submission: string; order: string }> {
  const submission = (await create('submissions')).id;
  const order = (
    await create('orders', {}, { submission: rel('submissions', submission), study: rel('studies', study), request_types: rels('request_types', requestTypes) })
  ).id;
  return { submission, order };
}

export interface RequestLinks {
  asset?: Linkage;
  requestType?: string;
  submission?: string;
  order?: string;
}

/** A write document for a request; undefined links are left out. */
export function requestDoc(links: RequestLinks, attributes: Record<string, unknown> = {}) {
  return doc('requests', attributes, {
    ...(links.asset ? { asset: { data: links.asset } } : {}),
    ...(links.requestType ? { request_type: rel('request_types', links.requestType) } : {}),
    ...(links.submission ? { submission: rel('submissions', links.submission) } : {}),
    ...(links.order ? { order: rel('orders', links.order) } : {}),
  });
}

/** POSTs a request, failing the test unless it is created (201); returns its `data`. */
export async function createRequest(links: RequestLinks, attributes?: Record<string, unknown>): Promise<any> {
  const res = await call('POST', '/api/v2/requests', { body: requestDoc(links, attributes) });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

/** PATCHes a request's state. */
export const patchState = (id: string, state: unknown): Promise<CallResult> =>
  call('PATCH', `/api/v2/requests/${id}`, { body: doc('requests', { state }, undefined, id) });

/** The stored state of a request, read through the API. */
export async function requestState(id: string): Promise<string> {
  const res = await call('GET', `/api/v2/requests/${id}`);
  expect(res.status).toBe(200);
  return res.body.data.attributes.state;
}
