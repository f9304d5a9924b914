package dev.zklock.faults;

import dev.zklock.LockTemplate;

/**
 * What every command of a {@link LockWorker} shares.
 *
 * @param id the worker's id, in events
 * @param template the application's lock template
 * @param resource where the protected resource is, for {@link ResourceClient#connect(String)}
 */
record WorkerSettings(String id, LockTemplate template, String resource) {

}
