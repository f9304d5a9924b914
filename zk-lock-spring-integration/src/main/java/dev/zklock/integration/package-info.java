/**
 * Spring Integration's {@code LockRegistry} on zk-lock's engine.
 */
@NullMarked
package dev.zklock.integration;

import org.jspecify.annotations.NullMarked;
