/* Force-included into CMSIS-NN's sources on the Cortex-M55 (cmsis_nn.BUILD): works
 * around GCC 12's arm_mve.h, whose polymorphic intrinsics (vfmaq, vmulq, ...) pick their
 * variant with _Generic over `__typeof(arg)`, which keeps a const qualifier: a const
 * scalar argument (`const float32_t lhs_v`, `lhs_row[k]` of a `const float32_t *`) then
 * matches no variant and the macro reads `*(T *)__ARM_undef` instead of the argument. The
 * link fails with "undefined reference to `__ARM_undef'" (arm_nn_mat_mult_nt_t_f32.c and
 * four other float32 kernels). Newer GCCs strip the qualifier.
 *
 * GCC 12 also coerces an integer scalar to int for some intrinsics (vaddq) and to the
 * vector's element type for others (vmulq, vcmpltq: int32_t, which is long on
 * arm-none-eabi), so `vaddq(u32x4, (uint32_t)n)` and `vcmpltq(s32x4, -126)` fail alike.
 *
 * Each polymorphic intrinsic CMSIS-NN calls (those of arm_mve.h whose macro selects by
 * __typeof) is redefined to pass its operands as that intrinsic's GCC 12 definition
 * coerces them: an integer scalar as int or as the element type, anything else cast to
 * its own type (the same value, unqualified). Checked on CMSIS-NN at
 * dbf45dbfcc515421dd6099037d3e2637b90748c8 with Debian's arm-none-eabi-gcc 12.2.1,
 * -mcpu=cortex-m55 -O2: none of its 149 C files references __ARM_undef any more (five
 * did), and the other 144 disassemble to exactly the same code with and without this
 * header. (The list below follows from arm_mve.h and CMSIS-NN's calls; an intrinsic
 * CMSIS-NN starts to use needs its line.)
 */
#ifndef PTEFORGE_THIRD_PARTY_CMSIS_NN_GCC12_MVE_CONST_ARGS_H_
#define PTEFORGE_THIRD_PARTY_CMSIS_NN_GCC12_MVE_CONST_ARGS_H_

#if defined(__ARM_FEATURE_MVE) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13

#include <arm_mve.h>

/* An argument cast to its own type: the same value without a const qualifier. */
#define PTEFORGE_UNQUALIFIED(x) ((__typeof__(x))(x))
/* An integer scalar as int, for the intrinsics that coerce their integer scalars to int
 * (an int32_t is long here); anything else as PTEFORGE_UNQUALIFIED. (The inner _Generic
 * keeps the cast valid where x is a vector: that branch is not taken, but compiled.) */
#define PTEFORGE_INTEGER_OR_ZERO(x)                                                                 \
  _Generic((x), signed char: (x), unsigned char: (x), short: (x), unsigned short: (x), int: (x), \
           unsigned int: (x), long: (x), unsigned long: (x), default: 0)
#define PTEFORGE_INT_SCALAR(x)                                                                                   \
  _Generic((x), signed char: (int)PTEFORGE_INTEGER_OR_ZERO(x), unsigned char: (int)PTEFORGE_INTEGER_OR_ZERO(x), \
           short: (int)PTEFORGE_INTEGER_OR_ZERO(x), unsigned short: (int)PTEFORGE_INTEGER_OR_ZERO(x),         \
           int: (int)PTEFORGE_INTEGER_OR_ZERO(x), unsigned int: (int)PTEFORGE_INTEGER_OR_ZERO(x),             \
           long: (int)PTEFORGE_INTEGER_OR_ZERO(x), unsigned long: (int)PTEFORGE_INTEGER_OR_ZERO(x),           \
           default: PTEFORGE_UNQUALIFIED(x))
/* An integer scalar as the element type of the vector v, for the intrinsics that coerce
 * their scalars to it (an int literal is int, int32_t is long here); anything else as
 * PTEFORGE_UNQUALIFIED. */
#define PTEFORGE_AS_ELEMENT_OF(v, x)                                                                       \
  _Generic((v), int8x16_t: (int8_t)PTEFORGE_INTEGER_OR_ZERO(x), int16x8_t: (int16_t)PTEFORGE_INTEGER_OR_ZERO(x), \
           int32x4_t: (int32_t)PTEFORGE_INTEGER_OR_ZERO(x), uint8x16_t: (uint8_t)PTEFORGE_INTEGER_OR_ZERO(x),    \
           uint16x8_t: (uint16_t)PTEFORGE_INTEGER_OR_ZERO(x), uint32x4_t: (uint32_t)PTEFORGE_INTEGER_OR_ZERO(x), \
           default: PTEFORGE_UNQUALIFIED(x))
#define PTEFORGE_SCALAR_LIKE(v, x)                                                                       \
  _Generic((x), signed char: PTEFORGE_AS_ELEMENT_OF(v, x), unsigned char: PTEFORGE_AS_ELEMENT_OF(v, x), \
           short: PTEFORGE_AS_ELEMENT_OF(v, x), unsigned short: PTEFORGE_AS_ELEMENT_OF(v, x),           \
           int: PTEFORGE_AS_ELEMENT_OF(v, x), unsigned int: PTEFORGE_AS_ELEMENT_OF(v, x),               \
           long: PTEFORGE_AS_ELEMENT_OF(v, x), unsigned long: PTEFORGE_AS_ELEMENT_OF(v, x),             \
           default: PTEFORGE_UNQUALIFIED(x))

#undef vabsq
#define vabsq(a) __arm_vabsq(PTEFORGE_UNQUALIFIED(a))
#undef vaddq
#define vaddq(a, b) __arm_vaddq(PTEFORGE_UNQUALIFIED(a), PTEFORGE_INT_SCALAR(b))
#undef vcmpgtq
#define vcmpgtq(a, b) __arm_vcmpgtq(PTEFORGE_UNQUALIFIED(a), PTEFORGE_SCALAR_LIKE(a, b))
#undef vcmpltq
#define vcmpltq(a, b) __arm_vcmpltq(PTEFORGE_UNQUALIFIED(a), PTEFORGE_SCALAR_LIKE(a, b))
#undef vdupq_m
#define vdupq_m(inactive, a, p) __arm_vdupq_m(PTEFORGE_UNQUALIFIED(inactive), PTEFORGE_UNQUALIFIED(a), p)
#undef vfmaq
#define vfmaq(a, b, c) __arm_vfmaq(PTEFORGE_UNQUALIFIED(a), PTEFORGE_UNQUALIFIED(b), PTEFORGE_UNQUALIFIED(c))
#undef vfmaq_m
#define vfmaq_m(a, b, c, p) __arm_vfmaq_m(PTEFORGE_UNQUALIFIED(a), PTEFORGE_UNQUALIFIED(b), PTEFORGE_UNQUALIFIED(c), p)
#undef vfmasq
#define vfmasq(a, b, c) __arm_vfmasq(PTEFORGE_UNQUALIFIED(a), PTEFORGE_UNQUALIFIED(b), PTEFORGE_UNQUALIFIED(c))
#undef vfmsq
#define vfmsq(a, b, c) __arm_vfmsq(PTEFORGE_UNQUALIFIED(a), PTEFORGE_UNQUALIFIED(b), PTEFORGE_UNQUALIFIED(c))
#undef vidupq_u16
#define vidupq_u16(a, imm) __arm_vidupq_u16(PTEFORGE_UNQUALIFIED(a), imm)
#undef vidupq_u32
#define vidupq_u32(a, imm) __arm_vidupq_u32(PTEFORGE_UNQUALIFIED(a), imm)
#undef vldrhq_gather_shifted_offset
#define vldrhq_gather_shifted_offset(base, offset) __arm_vldrhq_gather_shifted_offset(PTEFORGE_UNQUALIFIED(base), PTEFORGE_UNQUALIFIED(offset))
#undef vldrhq_gather_shifted_offset_z
#define vldrhq_gather_shifted_offset_z(base, offset, p) __arm_vldrhq_gather_shifted_offset_z(PTEFORGE_UNQUALIFIED(base), PTEFORGE_UNQUALIFIED(offset), p)
#undef vldrwq_gather_shifted_offset
#define vldrwq_gather_shifted_offset(base, offset) __arm_vldrwq_gather_shifted_offset(PTEFORGE_UNQUALIFIED(base), PTEFORGE_UNQUALIFIED(offset))
#undef vldrwq_gather_shifted_offset_z
#define vldrwq_gather_shifted_offset_z(base, offset, p) __arm_vldrwq_gather_shifted_offset_z(PTEFORGE_UNQUALIFIED(base), PTEFORGE_UNQUALIFIED(offset), p)
#undef vmaxnmq
#define vmaxnmq(a, b) __arm_vmaxnmq(PTEFORGE_UNQUALIFIED(a), PTEFORGE_UNQUALIFIED(b))
#undef vminnmq
#define vminnmq(a, b) __arm_vminnmq(PTEFORGE_UNQUALIFIED(a), PTEFORGE_UNQUALIFIED(b))
#undef vminq
#define vminq(a, b) __arm_vminq(PTEFORGE_UNQUALIFIED(a), PTEFORGE_UNQUALIFIED(b))
#undef vmulq
#define vmulq(a, b) __arm_vmulq(PTEFORGE_UNQUALIFIED(a), PTEFORGE_SCALAR_LIKE(a, b))
#undef vnegq
#define vnegq(a) __arm_vnegq(PTEFORGE_UNQUALIFIED(a))
#undef vnegq_m
#define vnegq_m(inactive, a, p) __arm_vnegq_m(PTEFORGE_UNQUALIFIED(inactive), PTEFORGE_UNQUALIFIED(a), p)
#undef vpselq
#define vpselq(a, b, p) __arm_vpselq(PTEFORGE_UNQUALIFIED(a), PTEFORGE_UNQUALIFIED(b), p)
#undef vst1q
#define vst1q(addr, value) __arm_vst1q(PTEFORGE_UNQUALIFIED(addr), PTEFORGE_UNQUALIFIED(value))
#undef vst1q_p
#define vst1q_p(addr, value, p) __arm_vst1q_p(PTEFORGE_UNQUALIFIED(addr), PTEFORGE_UNQUALIFIED(value), p)
#undef vstrhq_p
#define vstrhq_p(addr, value, p) __arm_vstrhq_p(PTEFORGE_UNQUALIFIED(addr), PTEFORGE_UNQUALIFIED(value), p)
#undef vstrwq_p
#define vstrwq_p(addr, value, p) __arm_vstrwq_p(PTEFORGE_UNQUALIFIED(addr), PTEFORGE_UNQUALIFIED(value), p)
#undef vsubq
#define vsubq(a, b) __arm_vsubq(PTEFORGE_UNQUALIFIED(a), PTEFORGE_SCALAR_LIKE(a, b))

#endif

#endif /* PTEFORGE_THIRD_PARTY_CMSIS_NN_GCC12_MVE_CONST_ARGS_H_ */
