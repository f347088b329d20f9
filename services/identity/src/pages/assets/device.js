/* global document */
// The device verification page: approve or deny the request named by the user code.
import { api, status } from './api.js';

const $ = (id) => document.getElementById(id);
const request = $('request');

async function answer(approve) {
  const userCode = request.dataset.userCode;
  for (const id of ['approve', 'deny']) $(id).disabled = true;
  try {
    await api(approve ? '/device/approve' : '/device/deny', { userCode });
    status(
      $('status'),
      approve ? 'Approved. Your device is connected: you can close this page.' : 'Denied. The device will not get access.',
    );
    request.dataset.answered = approve ? 'approved' : 'denied';
    for (const id of ['approve', 'deny']) $(id).hidden = true;
  } catch (err) {
    status($('status'), err.message, true);
    for (const id of ['approve', 'deny']) $(id).disabled = false;
  }
}

if (request) {
  $('approve').addEventListener('click', () => answer(true));
  $('deny').addEventListener('click', () => answer(false));
}
