// The Nest CLI's Swagger plugin, for ts-jest: the e2e app documents DTOs exactly as `nest build` does.
const transformer = require('@nestjs/swagger/plugin');

module.exports.name = 'nestjs-swagger-transformer';
module.exports.version = 1;
module.exports.factory = (cs) =>
  transformer.before(
    {
      classValidatorShim: true,
      introspectComments: true,
      dtoFileNameSuffix: ['.dto.ts', '.response.ts'],
    },
    cs.program,
  );
