/**
 * {@link dev.zklock.annotation.LockMode}, shared by the engine and the annotations;
 * the annotations themselves live in zk-lock-spring-boot-autoconfigure.
 */
@NullMarked
package dev.zklock.annotation;

import org.jspecify.annotations.NullMarked;
