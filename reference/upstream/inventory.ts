// The simulated provider's inventory: a few exchanges, each with a run of fictional NANP
// numbers (555-01XX), enough for searches to find, miss and group.
export interface Exchange {
  npa: string;
  nxx: string;
  city: string;
  state: string;
  zipCode: string;
  rateCenter: string;
}

export interface AvailableNumber {
  phoneNumber: string;
  npa: string;
  nxx: string;
  city: string;
  state: string;
  rateCenter: string;
}

export interface SearchCriteria {
  npa?: string;
  nxx?: string;
  city?: string;
  state?: string;
  zipCode?: string;
  rateCenter?: string;
}

const EXCHANGES: Exchange[] = [
  { npa: '202', nxx: '555', city: 'Washington', state: 'DC', zipCode: '20001', rateCenter: 'WSHNGTNZN1' },
  { npa: '212', nxx: '555', city: 'New York', state: 'NY', zipCode: '10001', rateCenter: 'NWYRCYZN01' },
  { npa: '312', nxx: '555', city: 'Chicago', state: 'IL', zipCode: '60601', rateCenter: 'CHCGOZN01' },
  { npa: '415', nxx: '555', city: 'San Francisco', state: 'CA', zipCode: '94102', rateCenter: 'SNFC CNTRL' },
  { npa: '415', nxx: '556', city: 'San Francisco', state: 'CA', zipCode: '94103', rateCenter: 'SNFC CNTRL' },
];

const NUMBERS_PER_EXCHANGE = 8;

const same = (a: string | undefined, b: string) => a === undefined || a.toLowerCase() === b.toLowerCase();

export function findAvailable(criteria: SearchCriteria): AvailableNumber[] {
  return EXCHANGES.filter(
    (exchange) =>
      same(criteria.npa, exchange.npa) &&
      same(criteria.nxx, exchange.nxx) &&
      same(criteria.city, exchange.city) &&
      same(criteria.state, exchange.state) &&
      same(criteria.zipCode, exchange.zipCode) &&
      same(criteria.rateCenter, exchange.rateCenter),
  ).flatMap(({ zipCode: _zip, ...exchange }) =>
    Array.from({ length: NUMBERS_PER_EXCHANGE }, (_, index) => ({
      ...exchange,
      phoneNumber: `+1${exchange.npa}${exchange.nxx}01${String(60 + index).padStart(2, '0')}`,
    })),
  );
}
