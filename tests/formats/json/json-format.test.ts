import { ConfigError } from '../../../src/errors/config-error';
import { resolveFormatConfig } from '../../../src/formats/format-config';
import { jsonFormat } from '../../../src/formats/json/json-format';

describe('JSON format options', () => {
  it('accepts every documented option', () => {
    const options = {
      jsonContent: 'arrayOfObjects',
      maxObjectLengthChars: 1,
      maxNestingDepth: 7,
      charset: 'UTF-16LE',
      ignoreControlCharacters: true,
    };
    expect(resolveFormatConfig(jsonFormat, options)).toEqual(options);
  });

  it('lists every invalid option', () => {
    let problems: ConfigError['problems'] = [];
    try {
      resolveFormatConfig(jsonFormat, {
        jsonContent: 'lines',
        maxObjectLengthChars: 1.5,
        charset: '',
        ignoreControlCharacters: 'no',
        maxRecordLength: 3,
      });
    } catch (error) {
      if (error instanceof ConfigError) problems = error.problems;
    }
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: '/jsonContent', message: 'must be one of "arrayOfObjects", "multipleObjects"' },
        { path: '/maxObjectLengthChars', message: 'must be integer' },
        { path: '/charset', message: 'must NOT have fewer than 1 characters' },
        { path: '/ignoreControlCharacters', message: 'must be boolean' },
        { path: '/maxRecordLength', message: 'is not a known option' },
      ]),
    );
  });
});
