import { readBaggage } from '@ambient/correlation';
import { baggageMembers } from '@ambient/correlation/internal';

describe('readBaggage', () => {
  it("takes Ambient's two members among others, with whitespace, properties and percent-encoding", () => {
    expect(readBaggage(' userId=42 , correlationId = chain%2F1;ttl=3 ,causationId=req-1,other=%7B%7D')).toEqual({
      correlationId: 'chain/1',
      causationId: 'req-1',
    });
    expect(readBaggage('correlationId=chain-1')).toEqual({ correlationId: 'chain-1' });
  });

  it('drops a member whose id fails the check, alone, by the validator given', () => {
    expect(readBaggage('correlationId=ok,causationId=%20')).toEqual({ correlationId: 'ok' });
    expect(readBaggage('correlationId=abc', (id) => id.startsWith('x'))).toEqual({});
    const throwing = () => {
      throw new Error('validator bug');
    };
    expect(readBaggage('correlationId=abc', throwing)).toEqual({});
  });

  it('ignores a header that breaks the rules, as a whole, and anything not a string', () => {
    for (const header of [
      '',
      'correlationId',
      'correlationId=a,=b',
      'correlationId=%ZZ',
      'correlationId=%E0%A4%A',
      'correlationId="quoted"',
      'correlationId=a,correlationId=a',
      `correlationId=a,${'k=v,'.repeat(64)}`,
      `correlationId=a,pad=${'x'.repeat(8192)}`,
      'corr elationId=a',
    ]) {
      expect([header.slice(0, 40), readBaggage(header)]).toEqual([header.slice(0, 40), {}]);
    }
    for (const value of [undefined, null, 42, ['correlationId=a'], { correlationId: 'a' }]) {
      expect(readBaggage(value)).toEqual({});
    }
  });

  it('reads what baggageMembers writes', () => {
    const ids = { correlationId: 'chain:1/2+3=@', causationId: 'req_1.2' };
    expect(readBaggage(baggageMembers(ids))).toEqual(ids);
    expect(baggageMembers({})).toBe('');
  });
});
