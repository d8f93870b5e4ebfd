import { WsMessageError, parseClientMessage } from './ws-client-message';

describe('parseClientMessage', () => {
  it('reads auth, ping and subscribe (keeping the channel fields of subscribe)', () => {
    expect(parseClientMessage('{"type":"auth","token":"t"}')).toEqual({ type: 'auth', token: 't' });
    expect(parseClientMessage('{"type":"ping"}')).toEqual({ type: 'ping' });
    expect(parseClientMessage('{"type":"subscribe","after_seq":5,"types":["a"]}')).toEqual({ type: 'subscribe', after_seq: 5, fields: { types: ['a'] } });
    expect(parseClientMessage('{"type":"subscribe"}')).toEqual({ type: 'subscribe', fields: {} });
  });

  it.each(['nope', '[]', 'null', '"x"', '{"type":"auth"}', '{"type":"auth","token":""}', '{"type":"subscribe","after_seq":1.5}', '{"type":"subscribe","after_seq":"3"}', '{"type":"hello"}', '{}'])(
    'refuses %s',
    (raw) => {
      expect(() => parseClientMessage(raw)).toThrow(WsMessageError);
    },
  );
});
