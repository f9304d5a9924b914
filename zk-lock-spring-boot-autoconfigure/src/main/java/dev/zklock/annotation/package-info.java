/**
 * Annotations that declare distributed locks on methods.
 */
@NullMarked
package dev.zklock.annotation;

import org.jspecify.annotations.NullMarked;
