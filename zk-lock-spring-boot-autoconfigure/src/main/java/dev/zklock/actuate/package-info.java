/**
 * The {@code locks} Actuator endpoint: held locks and their queues.
 */
@NullMarked
package dev.zklock.actuate;

import org.jspecify.annotations.NullMarked;
