/**
 * A simulated payment gateway that orders call under a lock.
 */
@NullMarked
package dev.zklock.sample.payment;

import org.jspecify.annotations.NullMarked;
