// SPDX-License-Identifier: UNLICENSED
pragma solidity 0.8.37;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {MessageHashUtils} from "@openzeppelin/contracts/utils/cryptography/MessageHashUtils.sol";
import {MerkleProof} from "@openzeppelin/contracts/utils/cryptography/MerkleProof.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";

/// @title SettlementVault
/// @notice Holds one ERC-20 for the idlegpu appchain: renters deposit into it
/// (the appchain credits each deposit by its event nonce, in order) and
/// providers are paid out of it against cumulative Merkle roots that more than
/// two thirds of the appchain's validator power signed. A root becomes
/// claimable only after its own timelock, during which the guardian can
/// pause; a later proposal never delays an earlier one.
/// @dev The rules, digests and invariants are specified in contracts/README.md;
/// contracts/payout is the Go side of every digest and tree.
contract SettlementVault is Pausable, ReentrancyGuardTransient {
    using SafeERC20 for IERC20;

    /// @notice The appchain's validator set as the vault sees it: EVM signing
    /// addresses strictly increasing, each with its normalised voting power.
    struct Valset {
        address[] validators;
        uint64[] powers;
        uint64 nonce;
    }

    /// @notice One validator's signature; `index` is its position in the
    /// valset. Signatures are given in strictly increasing index order, so no
    /// validator counts twice.
    struct Signature {
        uint32 index;
        uint8 v;
        bytes32 r;
        bytes32 s;
    }

    /// @notice A payout root: leaves are (account, cumulative amount paid to
    /// it since the vault began).
    struct PayoutRoot {
        bytes32 root;
        uint256 totalCumulative;
        uint64 epoch;
        uint64 acceptableAt;
    }

    /// @notice Voting powers are normalised so that a whole set sums to at most
    /// this (the appchain rounds each share down).
    uint64 public constant POWER_TOTAL = 1 << 32;
    /// @notice Signatures must carry strictly more power than this: two thirds
    /// of POWER_TOTAL, rounded down.
    uint64 public constant POWER_THRESHOLD = 2_863_311_530;
    /// @notice The most validators one set may hold, so that a check of
    /// signatures is bounded in gas.
    uint256 public constant MAX_VALIDATORS = 256;
    /// @notice The longest timelock a vault may have, so a deployment mistake
    /// cannot put every root out of reach.
    uint64 public constant MAX_ROOT_DELAY = 30 days;

    /// @notice Domain tag of a valset checkpoint (signed to rotate the set).
    bytes32 public constant VALSET_TAG = keccak256("idlegpu.SettlementVault.valset.v1");
    /// @notice Domain tag of a payout root digest.
    bytes32 public constant ROOT_TAG = keccak256("idlegpu.SettlementVault.root.v1");

    /// @notice The token held and paid out (USDC on a real deployment).
    IERC20 public immutable token;
    /// @notice Tells this vault's digests apart from any other vault's that
    /// the same validators sign for.
    bytes32 public immutable vaultId;
    /// @notice May pause and unpause deposits, root acceptance and claims;
    /// nothing else.
    address public immutable guardian;
    /// @notice Seconds between a root's proposal and when it may be accepted.
    uint64 public immutable rootDelay;

    /// @notice Checkpoint of the current validator set.
    bytes32 public valsetCheckpoint;
    /// @notice Nonce of the current validator set.
    uint64 public valsetNonce;

    /// @notice Nonce of the last deposit (the first deposit has nonce 1).
    uint64 public depositNonce;
    /// @notice Everything ever credited to depositors.
    uint256 public totalDeposited;
    /// @notice Everything ever paid out by claims.
    uint256 public totalClaimed;

    /// @notice The highest epoch ever proposed (accepted or not).
    uint64 public lastProposedEpoch;
    /// @notice Every root proposed for an epoch at or below this was
    /// cancelled by a proposal made while the vault was paused; none of them
    /// can be accepted.
    uint64 public cancelledThrough;
    /// @notice Proposed roots by epoch, each with its own timelock (zero root
    /// for an epoch never proposed or already accepted). An entry at or below
    /// the accepted epoch or `cancelledThrough` can no longer be accepted.
    mapping(uint64 epoch => PayoutRoot) public pendingRoots;
    /// @notice The root claims are paid against (zero root before the first).
    PayoutRoot public acceptedRoot;
    /// @notice Cumulative amount paid to each account.
    mapping(address account => uint256) public claimed;

    /// @notice A deposit credited `amount` (what the vault received) to
    /// `recipient` on the appchain.
    event Deposited(uint64 indexed nonce, address indexed from, address indexed recipient, uint256 amount);
    /// @notice The validator set changed (also emitted for the first set).
    event ValsetUpdated(uint64 indexed nonce, bytes32 checkpoint, address[] validators, uint64[] powers);
    /// @notice A root was proposed; it may be accepted from `acceptableAt`.
    event RootProposed(
        uint64 indexed epoch, bytes32 root, uint256 totalCumulative, uint64 acceptableAt, uint64 valsetNonce
    );
    /// @notice A proposal made while paused cancelled every root proposed for
    /// an epoch up to `throughEpoch` that had not been accepted.
    event RootsCancelled(uint64 indexed throughEpoch);
    /// @notice A root became the one claims are paid against.
    event RootAccepted(uint64 indexed epoch, bytes32 root, uint256 totalCumulative);
    /// @notice `account` was paid `amount`, bringing it to `cumulative`.
    event Claimed(address indexed account, uint256 amount, uint256 cumulative, uint64 epoch);

    error ZeroAddress();
    error ZeroDelay();
    error DelayTooLong(uint64 delay);
    error ZeroAmount();
    error EmptyValset();
    error TooManyValidators(uint256 count);
    error ValsetLengthMismatch(uint256 validators, uint256 powers);
    error ValidatorsNotSorted(uint256 index);
    error ZeroPower(uint256 index);
    error PowerAboveTotal(uint256 power);
    error PowerBelowThreshold(uint256 power);
    error ValsetMismatch(bytes32 given, bytes32 stored);
    error ValsetNonceNotIncreasing(uint64 nonce, uint64 current);
    error SignersNotIncreasing(uint256 position);
    error SignerIndexOutOfRange(uint256 position, uint256 index);
    error InvalidSignature(uint256 position, ECDSA.RecoverError reason);
    error WrongSigner(uint256 position, address expected, address recovered);
    error InsufficientPower(uint256 signed);
    error ZeroRoot();
    error EpochNotIncreasing(uint64 epoch, uint64 last);
    error TotalDecreased(uint256 totalCumulative, uint256 accepted);
    error TotalAboveDeposits(uint256 totalCumulative, uint256 deposited);
    error NoPendingRoot(uint64 epoch);
    error RootSuperseded(uint64 epoch, uint64 acceptedEpoch);
    error RootCancelled(uint64 epoch, uint64 cancelledThrough);
    error TimelockNotExpired(uint64 acceptableAt, uint256 timestamp);
    error NoAcceptedRoot();
    error InvalidProof();
    error NothingToClaim(address account, uint256 cumulative, uint256 alreadyClaimed);
    error ClaimsAboveTotal(uint256 claimed, uint256 totalCumulative);
    error NotGuardian(address caller);

    modifier onlyGuardian() {
        if (msg.sender != guardian) revert NotGuardian(msg.sender);
        _;
    }

    /// @param token_ the ERC-20 the vault holds
    /// @param vaultId_ distinguishes this vault's digests from any other's
    /// @param guardian_ the address that may pause
    /// @param rootDelay_ the timelock on roots, in seconds (1 to MAX_ROOT_DELAY)
    /// @param initial the appchain's validator set at deployment
    constructor(IERC20 token_, bytes32 vaultId_, address guardian_, uint64 rootDelay_, Valset memory initial) {
        if (address(token_) == address(0) || guardian_ == address(0)) revert ZeroAddress();
        if (rootDelay_ == 0) revert ZeroDelay();
        if (rootDelay_ > MAX_ROOT_DELAY) revert DelayTooLong(rootDelay_);
        token = token_;
        vaultId = vaultId_;
        guardian = guardian_;
        rootDelay = rootDelay_;
        _validateValset(initial.validators, initial.powers);
        bytes32 checkpoint = _checkpoint(initial.validators, initial.powers, initial.nonce);
        valsetCheckpoint = checkpoint;
        valsetNonce = initial.nonce;
        emit ValsetUpdated(initial.nonce, checkpoint, initial.validators, initial.powers);
    }

    // ---------------------------------------------------------------- deposits

    /// @notice Pulls `amount` of the token from the caller and credits what the
    /// vault actually received to `recipient` on the appchain.
    /// @dev Crediting the balance delta keeps a fee-on-transfer token from
    /// crediting more than arrived.
    function deposit(uint256 amount, address recipient) external nonReentrant whenNotPaused returns (uint64 nonce) {
        if (amount == 0) revert ZeroAmount();
        if (recipient == address(0)) revert ZeroAddress();
        uint256 before = token.balanceOf(address(this));
        token.safeTransferFrom(msg.sender, address(this), amount);
        uint256 received = token.balanceOf(address(this)) - before;
        if (received == 0) revert ZeroAmount();
        nonce = depositNonce + 1;
        depositNonce = nonce;
        totalDeposited += received;
        emit Deposited(nonce, msg.sender, recipient, received);
    }

    // ----------------------------------------------------------- validator set

    /// @notice Replaces the validator set with `next`, signed by more than two
    /// thirds of the power of `current` over the checkpoint of `next`.
    function updateValset(Valset calldata next, Valset calldata current, Signature[] calldata sigs) external {
        _requireCurrent(current);
        if (next.nonce <= current.nonce) revert ValsetNonceNotIncreasing(next.nonce, current.nonce);
        _validateValset(next.validators, next.powers);
        bytes32 checkpoint = _checkpoint(next.validators, next.powers, next.nonce);
        _verifySignatures(current, checkpoint, sigs);
        valsetCheckpoint = checkpoint;
        valsetNonce = next.nonce;
        emit ValsetUpdated(next.nonce, checkpoint, next.validators, next.powers);
    }

    /// @notice The checkpoint of `valset`: what the current set signs to make
    /// it the next one, and what the vault stores for the current one.
    function checkpointOf(Valset calldata valset) external view returns (bytes32) {
        return _checkpoint(valset.validators, valset.powers, valset.nonce);
    }

    // ----------------------------------------------------------------- payouts

    /// @notice Proposes `root` for `epoch`, signed by more than two thirds of
    /// the current set's power; it can be accepted `rootDelay` after this
    /// proposal, whatever is proposed after it. Only a proposal made while the
    /// guardian holds the vault paused cancels the earlier pending roots: that
    /// is how the validators correct a bad root.
    function proposeRoot(
        Valset calldata current,
        Signature[] calldata sigs,
        uint64 epoch,
        bytes32 root,
        uint256 totalCumulative
    ) external {
        _requireCurrent(current);
        if (root == bytes32(0)) revert ZeroRoot();
        uint64 last = lastProposedEpoch;
        if (epoch <= last) revert EpochNotIncreasing(epoch, last);
        uint256 acceptedTotal = acceptedRoot.totalCumulative;
        if (totalCumulative < acceptedTotal) revert TotalDecreased(totalCumulative, acceptedTotal);
        if (totalCumulative > totalDeposited) revert TotalAboveDeposits(totalCumulative, totalDeposited);
        _verifySignatures(current, rootDigest(current.nonce, epoch, root, totalCumulative), sigs);

        // Paused, the proposal cancels every root still pending (all of them
        // are at or below `last`, and the last one is pending exactly when it
        // is above both the accepted epoch and the cancelled ones). Unpaused,
        // it touches no earlier root, so a third party relaying newer roots
        // can never delay an older one.
        if (paused() && last > acceptedRoot.epoch && last > cancelledThrough) {
            cancelledThrough = last;
            emit RootsCancelled(last);
        }
        uint64 acceptableAt = uint64(block.timestamp) + rootDelay;
        pendingRoots[epoch] = PayoutRoot(root, totalCumulative, epoch, acceptableAt);
        lastProposedEpoch = epoch;
        emit RootProposed(epoch, root, totalCumulative, acceptableAt, current.nonce);
    }

    /// @notice Makes the root proposed for `epoch` the one claims are paid
    /// against, once its own timelock has passed. Anyone may call it. It
    /// supersedes every earlier root: none can be accepted afterwards.
    function acceptRoot(uint64 epoch) external whenNotPaused {
        PayoutRoot memory pending = pendingRoots[epoch];
        if (pending.root == bytes32(0)) revert NoPendingRoot(epoch);
        uint64 acceptedEpoch = acceptedRoot.epoch;
        if (epoch <= acceptedEpoch) revert RootSuperseded(epoch, acceptedEpoch);
        uint64 cancelled = cancelledThrough;
        if (epoch <= cancelled) revert RootCancelled(epoch, cancelled);
        if (block.timestamp < pending.acceptableAt) revert TimelockNotExpired(pending.acceptableAt, block.timestamp);
        // Roots are checked against the accepted total when proposed, but an
        // earlier root accepted since may have raised it.
        uint256 acceptedTotal = acceptedRoot.totalCumulative;
        if (pending.totalCumulative < acceptedTotal) revert TotalDecreased(pending.totalCumulative, acceptedTotal);
        if (pending.totalCumulative > totalDeposited) {
            revert TotalAboveDeposits(pending.totalCumulative, totalDeposited);
        }
        acceptedRoot = pending;
        delete pendingRoots[epoch];
        emit RootAccepted(epoch, pending.root, pending.totalCumulative);
    }

    /// @notice Pays `account` what its leaf in the accepted root holds beyond
    /// what it was already paid. Anyone may call it; the funds go to `account`.
    function claim(address account, uint256 cumulative, bytes32[] calldata proof)
        external
        nonReentrant
        whenNotPaused
        returns (uint256 amount)
    {
        PayoutRoot storage accepted = acceptedRoot;
        bytes32 root = accepted.root;
        if (root == bytes32(0)) revert NoAcceptedRoot();
        bytes32 leaf = keccak256(bytes.concat(keccak256(abi.encode(account, cumulative))));
        if (!MerkleProof.verifyCalldata(proof, root, leaf)) revert InvalidProof();
        uint256 already = claimed[account];
        if (cumulative <= already) revert NothingToClaim(account, cumulative, already);
        amount = cumulative - already;
        uint256 paid = totalClaimed + amount;
        // A root whose leaves add up to more than its total cannot pay more
        // than its total, and its total never exceeds the deposits.
        if (paid > accepted.totalCumulative) revert ClaimsAboveTotal(paid, accepted.totalCumulative);
        claimed[account] = cumulative;
        totalClaimed = paid;
        emit Claimed(account, amount, cumulative, accepted.epoch);
        token.safeTransfer(account, amount);
    }

    /// @notice The digest the validators sign to propose a root.
    function rootDigest(uint64 valsetNonce_, uint64 epoch, bytes32 root, uint256 totalCumulative)
        public
        view
        returns (bytes32)
    {
        return keccak256(
            abi.encode(ROOT_TAG, vaultId, block.chainid, address(this), valsetNonce_, epoch, root, totalCumulative)
        );
    }

    // ---------------------------------------------------------------- guardian

    /// @notice Stops deposits, root acceptance and claims.
    function pause() external onlyGuardian {
        _pause();
    }

    /// @notice Resumes deposits, root acceptance and claims.
    function unpause() external onlyGuardian {
        _unpause();
    }

    // ---------------------------------------------------------------- internal

    function _checkpoint(address[] memory validators, uint64[] memory powers, uint64 nonce)
        private
        view
        returns (bytes32)
    {
        return keccak256(abi.encode(VALSET_TAG, vaultId, block.chainid, address(this), nonce, validators, powers));
    }

    function _requireCurrent(Valset calldata current) private view {
        bytes32 given = _checkpoint(current.validators, current.powers, current.nonce);
        if (given != valsetCheckpoint) revert ValsetMismatch(given, valsetCheckpoint);
    }

    /// @dev A set is usable only if all of it together can pass the threshold.
    function _validateValset(address[] memory validators, uint64[] memory powers) private pure {
        uint256 n = validators.length;
        if (n == 0) revert EmptyValset();
        if (n > MAX_VALIDATORS) revert TooManyValidators(n);
        if (powers.length != n) revert ValsetLengthMismatch(n, powers.length);
        if (validators[0] == address(0)) revert ZeroAddress();
        uint256 total;
        for (uint256 i; i < n; ++i) {
            if (i > 0 && validators[i] <= validators[i - 1]) revert ValidatorsNotSorted(i);
            if (powers[i] == 0) revert ZeroPower(i);
            total += powers[i];
        }
        if (total > POWER_TOTAL) revert PowerAboveTotal(total);
        if (total <= POWER_THRESHOLD) revert PowerBelowThreshold(total);
    }

    /// @dev Every signature given must be valid and from the validator at its
    /// index; indexes strictly increase, so each validator counts at most once.
    function _verifySignatures(Valset calldata current, bytes32 digest, Signature[] calldata sigs) private pure {
        bytes32 hash = MessageHashUtils.toEthSignedMessageHash(digest);
        uint256 n = current.validators.length;
        uint256 power;
        uint256 next; // the lowest index the next signature may have
        for (uint256 i; i < sigs.length; ++i) {
            Signature calldata sig = sigs[i];
            uint256 index = sig.index;
            if (index < next) revert SignersNotIncreasing(i);
            if (index >= n) revert SignerIndexOutOfRange(i, index);
            next = index + 1;
            (address signer, ECDSA.RecoverError err,) = ECDSA.tryRecover(hash, sig.v, sig.r, sig.s);
            if (err != ECDSA.RecoverError.NoError) revert InvalidSignature(i, err);
            address expected = current.validators[index];
            if (signer != expected) revert WrongSigner(i, expected, signer);
            power += current.powers[index];
        }
        if (power <= POWER_THRESHOLD) revert InsufficientPower(power);
    }
}
