/**
 * A load generator that drives the sample service and reports what it saw.
 */
@NullMarked
package dev.zklock.sample.load;

import org.jspecify.annotations.NullMarked;
