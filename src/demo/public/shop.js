// The demo shop's browser code: the part a merchant writes. It asks the shop's own server for an
// invoice (the signing key never comes here), then shows it with the Satchel widget:
//  - "In a pop-up": the JS API, Satchel.open(invoice url, { onEvent }).
//  - "On this page": the declarative form, a <div data-satchel-invoice data-satchel-mode="inline">
//    added to the page; the widget notices it, and its DOM events (satchel:*) bubble up.
// A "paid" event only updates the screen: the shop's server confirms with the gateway.
(function () {
  'use strict';
  var base = document.body.getAttribute('data-base');
  var events = document.getElementById('events');
  var status = document.getElementById('order-status');
  var checkout = document.getElementById('checkout');
  var payHere = document.getElementById('pay-here');
  var orders = {}; // invoice uuid -> order, to match widget events to orders
  var busy = false;

  function choice(name) {
    var field = document.querySelector('[name="' + name + '"]:checked') || document.querySelector('select[name="' + name + '"]');
    return field ? field.value : '';
  }

  function say(text, className) {
    status.className = className || 'muted';
    status.textContent = text;
  }

  // widget.js loads async: wait for it if the payer is quicker.
  function satchel() {
    if (window.Satchel) return Promise.resolve(window.Satchel);
    return new Promise(function (resolve) {
      document.addEventListener('satchel:ready', function () { resolve(window.Satchel); }, { once: true });
    });
  }

  function logEvent(event) {
    var item = document.createElement('li');
    var p = event.payload || {};
    var extra = event.type === 'status' ? ' ' + p.status : event.type === 'closed' ? ' (' + p.reason + ')' : event.type === 'error' ? ' ' + p.code : '';
    item.setAttribute('data-event', event.type);
    item.textContent = event.mode + ' · ' + event.type + extra;
    events.appendChild(item);
  }

  function onWidgetEvent(event) {
    var order = orders[event.invoice];
    logEvent(event);
    if (!order) return;
    if (event.type === 'paid') confirmPaid(order);
    if (event.type === 'expired') say('Order ' + order.order_id + ' expired unpaid.');
    if (event.type === 'closed' && event.mode === 'modal' && !order.paid) offerPayAgain(order);
  }

  function confirmPaid(order) {
    return fetch(base + '/api/orders/' + encodeURIComponent(order.order_id))
      .then(function (response) { return response.json(); })
      .then(function (answer) {
        if (!answer.paid) return;
        order.paid = true;
        say('Order ' + order.order_id + ' is paid (confirmed by the shop\u2019s server). Thank you!', 'paid');
        if (payHere.querySelector('.pay-again')) payHere.replaceChildren();
      });
  }

  // Closed without paying: offer the payment again, declaratively (a click opens the modal).
  function offerPayAgain(order) {
    var existing = payHere.querySelector('.pay-again');
    if (existing && existing.getAttribute('data-satchel-invoice') === order.uuid) return;
    var button = document.createElement('button');
    button.type = 'button';
    button.className = 'pay-again';
    button.setAttribute('data-satchel-invoice', order.uuid);
    button.setAttribute('data-satchel-theme', order.theme);
    button.textContent = 'Pay with crypto';
    payHere.replaceChildren(button);
  }

  // Declarative elements report as DOM events that bubble: one listener for all of them.
  ['loaded', 'status', 'paid', 'expired', 'closed', 'error'].forEach(function (type) {
    checkout.addEventListener('satchel:' + type, function (e) { onWidgetEvent(e.detail); });
  });

  document.addEventListener('click', function (e) {
    var buy = e.target.closest && e.target.closest('button.buy');
    if (!buy || busy) return;
    busy = true;
    buy.setAttribute('aria-busy', 'true');
    fetch(base + '/api/checkout', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ product: buy.getAttribute('data-product') }),
    })
      .then(function (response) {
        return response.json().then(function (body) {
          if (!response.ok) throw new Error(body.message || 'The checkout failed.');
          return body;
        });
      })
      .then(function (order) {
        order.theme = choice('theme');
        orders[order.uuid] = order;
        say('Order ' + order.order_id + ': ' + order.product + ', $' + order.amount + '. Waiting for the payment.');
        payHere.replaceChildren();
        if (choice('mode') === 'inline') {
          var box = document.createElement('div');
          box.setAttribute('data-satchel-invoice', order.uuid);
          box.setAttribute('data-satchel-mode', 'inline');
          box.setAttribute('data-satchel-theme', order.theme);
          payHere.appendChild(box);
          return;
        }
        return satchel().then(function (Satchel) {
          Satchel.open(order.url, { theme: order.theme, onEvent: onWidgetEvent });
        });
      })
      .catch(function (error) { say(error.message); })
      .finally(function () {
        busy = false;
        buy.removeAttribute('aria-busy');
      });
  });
})();
