/**
 * Auto-configuration of zk-lock: the Curator client, lock managers, the annotation
 * advisor, and the Actuator and Micrometer integrations.
 */
@NullMarked
package dev.zklock.autoconfigure;

import org.jspecify.annotations.NullMarked;
