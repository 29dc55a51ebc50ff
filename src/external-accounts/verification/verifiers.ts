import { Provider, Type } from '@nestjs/common';
import { OperatorVerifier } from './operator.verifier';
import { SandboxVerifier } from './sandbox.verifier';
import { VERIFIERS, Verifier } from './verifier';

/**
 * Every verifier, in the order they are asked which accounts they handle: the first that
 * handles an account verifies it. A new provider (an open-banking or micro-deposit service) is a
 * class in this folder that implements Verifier, and one line here: before OperatorVerifier to
 * take live accounts from the operator.
 */
const VERIFIER_CLASSES: Type<Verifier>[] = [SandboxVerifier, OperatorVerifier];

/** The verifiers as providers, and the VERIFIERS token that holds them all, in order. */
export const verifierProviders: Provider[] = [
  ...VERIFIER_CLASSES,
  {
    provide: VERIFIERS,
    inject: VERIFIER_CLASSES,
    useFactory: (...verifiers: Verifier[]) => verifiers,
  },
];
