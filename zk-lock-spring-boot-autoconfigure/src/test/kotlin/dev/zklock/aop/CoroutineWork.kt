package dev.zklock.aop

import dev.zklock.FencingToken
import dev.zklock.LockContext
import dev.zklock.LockException
import dev.zklock.annotation.DistributedLock
import dev.zklock.annotation.LockMode
import dev.zklock.annotation.OnTimeout
import dev.zklock.findLockContext
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import org.slf4j.MDC
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.atomic.AtomicInteger
import kotlin.coroutines.AbstractCoroutineContextElement
import kotlin.coroutines.CoroutineContext
import kotlin.coroutines.coroutineContext

/** The suspend and Flow methods the coroutine tests lock, seen through an interface (JDK proxies). */
interface CoroutineWork {

    val maxActive: Int

    val cancelledBodies: Int

    val tokens: List<Long>

    /** The lock of the latest [held] call, as its body saw it. */
    val heldLock: LockContext?

    suspend fun counted(key: String, pause: Long): Int

    suspend fun held(key: String, started: CompletableDeferred<Unit>, gate: CompletableDeferred<Unit>): String

    suspend fun heldMany(keys: List<String>, started: CompletableDeferred<Unit>, gate: CompletableDeferred<Unit>)

    suspend fun stamped(key: String): Long

    suspend fun failing(key: String): String

    suspend fun contextSeen(key: String): String

    suspend fun fenced(key: String, token: FencingToken): Long

    suspend fun skippable(key: String): String?

    suspend fun withFallback(key: String): String

    suspend fun nested(key: String, self: CoroutineWork): String

    suspend fun read(key: String, started: CompletableDeferred<Unit>, gate: CompletableDeferred<Unit>)

    suspend fun write(key: String): Long

    suspend fun brief(key: String): Long

    fun stream(key: String, count: Int): Flow<Int>

    suspend fun suspendStream(key: String, count: Int): Flow<Int>

}

/** The failure [CoroutineWork.failing] throws, to check it arrives with its own type. */
class WorkFailedException(message: String) : RuntimeException(message)

/** A coroutine context element of the caller, to check the body sees it. */
class CallerTag(val value: String) : AbstractCoroutineContextElement(CallerTag) {
    companion object Key : CoroutineContext.Key<CallerTag>
}

/** Open, so that a CGLIB proxy can subclass it; every method is locked on lock "co". */
open class CoroutineWorkImpl : CoroutineWork {

    private val active = AtomicInteger()

    private val max = AtomicInteger()

    private val cancelled = AtomicInteger()

    private val entries = CopyOnWriteArrayList<Long>()

    override val maxActive: Int get() = max.get()

    override val cancelledBodies: Int get() = cancelled.get()

    override val tokens: List<Long> get() = entries

    @Volatile
    override var heldLock: LockContext? = null

    @DistributedLock(name = "co", key = "#key")
    override suspend fun counted(key: String, pause: Long): Int {
        val now = active.incrementAndGet()
        max.accumulateAndGet(now) { a, b -> maxOf(a, b) }
        try {
            delay(pause)
            return now
        } finally {
            active.decrementAndGet()
        }
    }

    @DistributedLock(name = "co", key = "#p0")
    override suspend fun held(key: String, started: CompletableDeferred<Unit>, gate: CompletableDeferred<Unit>): String {
        heldLock = findLockContext()
        started.complete(Unit)
        try {
            gate.await()
        } catch (ex: CancellationException) {
            cancelled.incrementAndGet()
            throw ex
        }
        return "done $key"
    }

    @DistributedLock(name = "co", key = "#keys")
    override suspend fun heldMany(keys: List<String>, started: CompletableDeferred<Unit>, gate: CompletableDeferred<Unit>) {
        started.complete(Unit)
        gate.await()
    }

    @DistributedLock(name = "co", key = "#key")
    override suspend fun stamped(key: String): Long {
        val token = requireNotNull(findLockContext()) { "no LockContext in the body" }.fencingToken()
        entries.add(token)
        delay(2)
        return token
    }

    @DistributedLock(name = "co", key = "#key")
    override suspend fun failing(key: String): String {
        delay(5)
        throw WorkFailedException("failed $key")
    }

    @DistributedLock(name = "co", key = "#key")
    override suspend fun contextSeen(key: String): String {
        delay(5)
        return "${coroutineContext[CallerTag]?.value} ${MDC.get("request")}"
    }

    @DistributedLock(name = "co", key = "#key")
    override suspend fun fenced(key: String, token: FencingToken): Long {
        delay(1)
        check(findLockContext()?.fencingToken() == token.value) { "the parameter is not the lock's token" }
        return token.value
    }

    @DistributedLock(name = "co", key = "#key", timeout = "0", onTimeout = OnTimeout.SKIP)
    override suspend fun skippable(key: String): String? = "ran $key"

    @DistributedLock(name = "co", key = "#key", timeout = "0", fallbackMethod = "fallback")
    override suspend fun withFallback(key: String): String = "ran $key"

    open suspend fun fallback(key: String, cause: LockException): String {
        delay(1)
        return "fallback $key ${cause.javaClass.simpleName}"
    }

    @DistributedLock(name = "co", key = "#key")
    override suspend fun nested(key: String, self: CoroutineWork): String =
        try {
            self.counted(key, 0)
            "the nested call ran"
        } catch (ex: LockException) {
            ex.message ?: ""
        }

    @DistributedLock(name = "co-rw", key = "#key", mode = LockMode.READ)
    override suspend fun read(key: String, started: CompletableDeferred<Unit>, gate: CompletableDeferred<Unit>) {
        started.complete(Unit)
        gate.await()
    }

    @DistributedLock(name = "co-rw", key = "#key", mode = LockMode.WRITE)
    override suspend fun write(key: String): Long = System.nanoTime()

    @DistributedLock(name = "co", key = "#key", minHold = "300ms")
    override suspend fun brief(key: String): Long = System.nanoTime()

    @DistributedLock(name = "co", key = "#key")
    override fun stream(key: String, count: Int): Flow<Int> = countingFlow(count)

    @DistributedLock(name = "co", key = "#key")
    override suspend fun suspendStream(key: String, count: Int): Flow<Int> = countingFlow(count)

    private fun countingFlow(count: Int): Flow<Int> = flow {
        val now = active.incrementAndGet()
        max.accumulateAndGet(now) { a, b -> maxOf(a, b) }
        try {
            requireNotNull(findLockContext()) { "no LockContext in the flow" }
            for (i in 1..count) {
                delay(10)
                emit(i)
            }
        } finally {
            active.decrementAndGet()
        }
    }

}
