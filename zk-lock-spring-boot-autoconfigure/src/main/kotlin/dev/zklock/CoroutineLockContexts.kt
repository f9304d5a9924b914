@file:JvmName("CoroutineLockContexts")

package dev.zklock

import kotlinx.coroutines.reactor.ReactorContext
import kotlin.coroutines.coroutineContext

// zk-lock puts the lock of a suspend function, Flow or withLock block into the Reactor context under
// LockContext::class.java; Spring and kotlinx-coroutines-reactor bridge it into the coroutine context

/**
 * The lock the calling coroutine holds innermost: inside a `@DistributedLock`
 * suspend function or `Flow`, a [withLock] block, a suspend `@Leader` function,
 * or else the lock of the current thread ([LockContext.find]).
 *
 * @return the lock, or `null` outside any lock
 */
suspend fun findLockContext(): LockContext? =
    coroutineContext[ReactorContext]?.context?.getOrDefault<LockContext>(LockContext::class.java, null)
        ?: LockContext.find().orElse(null)

/**
 * The lock the calling coroutine holds innermost, as [findLockContext] finds it.
 *
 * @throws IllegalStateException when the coroutine holds no lock
 */
suspend fun currentLockContext(): LockContext =
    findLockContext() ?: throw IllegalStateException(
        "The calling coroutine holds no lock: currentLockContext() works inside a @DistributedLock suspend " +
            "function or Flow, a withLock block or a suspend @Leader function; use findLockContext() when " +
            "there may be none",
    )
