// @vitest-environment jsdom
// On a phone each table row is a card whose cells print their column's heading (data-label): the
// labels come from the table's own headings, a heading only for screen readers labels nothing,
// and rows that arrive later (the next page, a row re-rendered) are labelled as they appear.
import { afterEach, describe, expect, test } from 'vitest';
import { cleanup, render, waitFor } from '@testing-library/preact';
import { useState } from 'preact/hooks';
import { TableScroll } from '../../src/dashboard-ui/ui.tsx';

afterEach(cleanup);

let addRow: () => void = () => {};

function Users() {
  const [rows, setRows] = useState(['ana@shop.example']);
  addRow = () => setRows((r) => [...r, 'bo@shop.example']);
  return (
    <TableScroll label="Users">
      <table>
        <thead>
          <tr>
            <th scope="col">Email</th>
            <th scope="col" colSpan={2}>
              Role and status
            </th>
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((email) => (
            <tr key={email}>
              <td>{email}</td>
              <td>owner</td>
              <td>active</td>
              <td>
                <button type="button">Remove</button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableScroll>
  );
}

const labels = (container: Element) => [...container.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td')].map((td) => td.getAttribute('data-label')));

describe('table cells labelled for cards', () => {
  test('each cell carries its column heading; spanned headings cover their columns; a hidden heading labels nothing', () => {
    const { container } = render(<Users />);
    expect(labels(container)).toEqual([['Email', 'Role and status', 'Role and status', '']]);
  });

  test('rows added later are labelled too', async () => {
    const { container } = render(<Users />);
    addRow();
    await waitFor(() => expect(labels(container)).toEqual([
      ['Email', 'Role and status', 'Role and status', ''],
      ['Email', 'Role and status', 'Role and status', ''],
    ]));
  });
});
