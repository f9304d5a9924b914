package dev.zklock.docs

import dev.zklock.LeaderElection
import dev.zklock.LockException
import dev.zklock.LockRequest
import dev.zklock.LockTemplate
import dev.zklock.annotation.DistributedLock
import dev.zklock.annotation.Leader
import dev.zklock.annotation.OnTimeout
import dev.zklock.awaitLeadership
import dev.zklock.currentLockContext
import dev.zklock.withLock
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.withContext
import org.springframework.scheduling.annotation.Scheduled
import org.springframework.stereotype.Component
import org.springframework.stereotype.Service

// The Kotlin blocks of docs/kotlin.md, compiled by the Kotlin test compilation.

/** A stand-in for an application's stock, as DocsModel.Stock is for the Java snippets. */
interface Stock {
    fun move(from: String, to: String, sku: String, quantity: Int)
}

/** A stand-in for an application's orders. */
interface Orders {
    fun update(orderId: String, change: Int)
}

@Service
class StockService(private val stock: Stock) {

    @DistributedLock(key = "#sku", timeout = "5s")
    suspend fun move(sku: String, quantity: Int) {
        val lock = currentLockContext()
        delay(50) // suspended, and still holding the lock
        lock.assertHeld()
        stock.move("shelf", "basket", sku, quantity)
    }

    @DistributedLock(key = "#sku", timeout = "0", onTimeout = OnTimeout.SKIP)
    suspend fun recount(sku: String): Int? {
        delay(10)
        return 42
    }

    @DistributedLock(key = "#sku", timeout = "0", fallbackMethod = "busy")
    suspend fun reserve(sku: String): String = "reserved $sku"

    suspend fun busy(sku: String, cause: LockException): String = "$sku is busy: ${cause.message}"

    @DistributedLock(key = "#sku")
    fun movements(sku: String): Flow<Int> = flow {
        for (batch in 1..3) {
            delay(10)
            emit(batch)
        }
    }

}

@Service
class Checkout(private val stockService: StockService) {

    suspend fun checkout(sku: String) = withContext(NonCancellable) {
        stockService.move(sku, 1)
    }

}

@Component
class Reports {

    @Scheduled(fixedDelay = 60_000)
    @Leader("reports")
    suspend fun publish() {
        delay(10) // runs on the leader only
    }

}

suspend fun renumber(template: LockTemplate, orders: Orders) {
    template.withLock(LockRequest.named("orders").keys("42").build()) { lock ->
        delay(10)
        orders.update("42", lock.fencingToken().toInt())
    }
}

suspend fun reportWhenLeading(election: LeaderElection, reports: Reports) {
    election.awaitLeadership("reports")
    reports.publish()
}
